import Foundation
import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckApp

/// Where the plugins of opened sources are found, how a source becomes a tab, and the file
/// names a tab id gives in the state folder.
@Suite struct OpenedSourcesTests {
    let dir = TempDir()

    func makeRoot(_ root: String) throws {
        try FileManager.default.createDirectory(atPath: root + "/Plugins/csv", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/Plugins/csv/tabdeck-csv", contents: Data())
    }

    @Test func thePluginsAreFoundAboveTheExecutableNotInTheCurrentFolder() throws {
        try makeRoot(dir.file("repo"))
        let build = dir.file("repo/.build/x86_64-unknown-linux-gnu/debug")
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        #expect(Locations.pluginRoot(executableDirectory: build) == dir.file("repo"))
        try makeRoot(dir.file("prefix/lib/tabdeck"))
        #expect(Locations.pluginRoot(executableDirectory: dir.file("prefix/lib/tabdeck/bin")) == dir.file("prefix/lib/tabdeck"))
        try FileManager.default.createDirectory(atPath: dir.file("elsewhere/bin"), withIntermediateDirectories: true)
        #expect(Locations.pluginRoot(executableDirectory: dir.file("elsewhere/bin")) == nil)
        #expect(Locations.pluginRoot(executableDirectory: nil) == nil)
    }

    @Test func sourcesAreRoutedByContent() throws {
        let root = dir.file("repo")
        try makeRoot(root)
        try "id\tname\n1\tann\n".write(toFile: dir.file("t.txt"), atomically: true, encoding: .utf8)
        try Data("SQLite format 3\0".utf8 + [UInt8](repeating: 0, count: 100)).write(to: URL(fileURLWithPath: dir.file("db.csv")))
        try Data([0x50, 0x41, 0x52, 0x31, 0, 0]).write(to: URL(fileURLWithPath: dir.file("p.parquet")))
        let tabs = OpenedSources.tabs(["t.txt", "db.csv", dir.path, "p.parquet", "postgres://ann:pw@h/db"],
                                      currentDirectory: dir.path, pluginRoot: root)
        let canonical = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        #expect(tabs[0].command == [root + "/Plugins/csv/tabdeck-csv"])
        #expect(tabs[0].args == ["path": .string(canonical + "/t.txt"), "delimiter": "tab"])
        #expect(tabs[0].id == canonical + "/t.txt" && tabs[0].title == "t.txt")
        #expect(tabs[1].command == [root + "/Plugins/sqlite/tabdeck-sqlite"])
        #expect(tabs[2].command == ["python3", root + "/Plugins/files/files.py"])
        // No DuckDB plugin in this root: the tab says what it would need.
        #expect(tabs[3].unavailable?.contains("p.parquet: a Parquet file; reading it needs the DuckDB plugin") == true)
        #expect(tabs[4].command == [root + "/Plugins/postgres/tabdeck-postgres"])
        #expect(tabs[4].args == ["url": "postgresql://ann@h/db"] && tabs[4].env == ["PGPASSWORD": "pw"])
        #expect(tabs[4].id == "postgresql://ann@h/db" && tabs[4].title == "ann@h/db")
        // With a DuckDB plugin, its format arg.
        try FileManager.default.createDirectory(atPath: root + "/Plugins/duckdb", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/Plugins/duckdb/tabdeck-duckdb", contents: Data(), attributes: [.posixPermissions: 0o755])
        let parquet = OpenedSources.tabs(["p.parquet"], currentDirectory: dir.path, pluginRoot: root)[0]
        #expect(parquet.command == [root + "/Plugins/duckdb/tabdeck-duckdb"])
        #expect(parquet.args == ["path": .string(canonical + "/p.parquet"), "format": "parquet"])
        // No plugins at all: each source says so.
        #expect(OpenedSources.tabs(["t.txt"], currentDirectory: dir.path, pluginRoot: nil)[0].unavailable?.contains("cannot find Tabdeck's plugins") == true)
    }

    @Test func anIdThatIsAPathMakesOneSafeFileName() {
        #expect(Locations.fileName(tab: "people") == "people")
        let a = Locations.fileName(tab: "/data/a/b.csv"), b = Locations.fileName(tab: "/data/a_b.csv")
        #expect(!a.contains("/") && !b.contains("/") && a != b)
        #expect(a.hasPrefix("_data_a_b.csv-"))
        #expect(!Locations.fileName(tab: "../x").hasPrefix("."))
        #expect(!Locations.fileName(tab: "postgresql://ann@h/db").contains("/"))
    }
}
