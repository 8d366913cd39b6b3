import SeededRandom
import Foundation
@testable import CSVTable

/// A temporary file holding `text`, removed when the object goes away.
final class TempFile {
    let path: String

    convenience init(_ text: String, name: String = "t.csv") {
        self.init(bytes: Array(text.utf8), name: name)
    }

    init(bytes: [UInt8], name: String = "t.csv") {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("csvtable-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        path = dir.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    deinit { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
}

/// Opens `text` as a CSV table.
func table(_ text: String, name: String = "t.csv", delimiter: UInt8? = nil) throws -> (CSVTable, TempFile) {
    let file = TempFile(text, name: name)
    return (try CSVTable(path: file.path, delimiter: delimiter), file)
}

extension CSVTable {
    /// All rows as raw strings (nil = missing cell).
    func allStrings() -> [[String?]] { (0..<(rowCount ?? 0)).map { strings(row: $0) } }
}


/// Quotes a field for CSV when needed.
func csvField(_ s: String) -> String {
    if s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r") {
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    return s
}
