/// One edge of Tabdeck that takes bytes from outside, as a fuzz target: `check` feeds it one
/// input and verifies the edge's invariants, returning the first one broken (nil: all hold).
/// A crash inside the edge is a finding too; libFuzzer and AddressSanitizer catch it.
public struct FuzzTarget: Sendable {
    /// The name `Scripts/fuzz` takes and the corpus folder's name (`Tests/Fuzz/corpus/NAME`).
    public let name: String
    /// What the target feeds and what it asserts, in a line.
    public let summary: String
    /// Runs one input through the edge and checks the invariants.
    public let check: @Sendable ([UInt8]) -> FuzzViolation?

    public init(name: String, summary: String, check: @escaping @Sendable ([UInt8]) -> FuzzViolation?) {
        self.name = name; self.summary = summary; self.check = check
    }
}

/// An invariant that did not hold for an input.
public struct FuzzViolation: Error, Equatable, Sendable, CustomStringConvertible {
    /// The target.
    public var target: String
    /// The invariant, in words.
    public var invariant: String
    /// What was seen instead.
    public var detail: String

    public init(_ target: String, _ invariant: String, _ detail: String) {
        self.target = target; self.invariant = invariant; self.detail = detail
    }

    public var description: String { "\(target): \(invariant): \(detail)" }
}

/// Every fuzz target, in the order `Scripts/fuzz --list` prints them.
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        CodecTarget.target, LinesTarget.target, KeysTarget.target, ConfigTarget.target,
        CommandTarget.target, SanitizerTarget.target, CSVTarget.target, StateTarget.target,
        SpoolTarget.target, PipeTarget.target, SourcesTarget.target, WhereTarget.target,
    ]

    /// The target called `name`.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Draws choices from the front of a fuzz input (bytes past its end read as 0), so one input
/// decides both the data and how it is cut or placed.
struct FuzzReader {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    mutating func uint16() -> Int { Int(byte()) << 8 | Int(byte()) }

    /// What is left.
    var rest: [UInt8] { Array(bytes) }
}

/// A short, printable excerpt of bytes for a violation's detail.
func excerpt(_ bytes: some Collection<UInt8>, limit: Int = 80) -> String {
    let shown = bytes.prefix(limit).map { b -> String in
        (0x20..<0x7F).contains(b) && b != 0x5C ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
    }.joined()
    return "\"" + shown + (bytes.count > limit ? "…" : "") + "\" (\(bytes.count) bytes)"
}
