#if canImport(Glibc)
import Glibc
#endif
import TabdeckFuzzTargets

/// Writes a line on standard error.
func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

// Built two ways (see Scripts/fuzz):
// - with `-sanitize=fuzzer,address -D FUZZING`: a libFuzzer binary for the target named by
//   `TABDECK_FUZZ_TARGET`; an input that breaks an invariant aborts with the violation.
// - plainly: `tabdeck-fuzz --list` prints the targets; `tabdeck-fuzz TARGET FILE...` replays
//   inputs through a target and prints each violation (exit status 1 if any).

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The target this process fuzzes.
let fuzzed: FuzzTarget = {
    let name = getenv("TABDECK_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTargets.named(name) else {
        printError("set TABDECK_FUZZ_TARGET to one of: \(FuzzTargets.all.map(\.name).joined(separator: ", "))")
        exit(2)
    }
    return target
}()

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let violation = fuzzed.check(bytes) {
        printError("invariant broken: \(violation)")
        abort()
    }
    return 0
}

@main struct Fuzz {
    static func main() {
        _ = fuzzed
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
    }
}
#else
import Foundation

@main struct Replay {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        if args == ["--list"] {
            for target in FuzzTargets.all { print(target.name) }
            return
        }
        guard let name = args.first, let target = FuzzTargets.named(name) else {
            printError("usage: tabdeck-fuzz --list | TARGET FILE...")
            exit(2)
        }
        var broken = 0
        for file in args.dropFirst() {
            guard let data = FileManager.default.contents(atPath: file) else { printError("cannot read \(file)"); exit(2) }
            if let violation = target.check(Array(data)) { print("\(file): \(violation)"); broken += 1 }
        }
        exit(broken == 0 ? 0 : 1)
    }
}
#endif
