import ArgumentParser
import Foundation

/// Prints the machine the benchmarks run on: CPU model, cores, memory, kernel.
struct MachineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "machine", abstract: "Describe this machine as one JSON object.")

    func run() throws {
        let cpu = Self.firstValue(in: "/proc/cpuinfo", key: "model name") ?? "unknown"
        let memory = Self.firstValue(in: "/proc/meminfo", key: "MemTotal") ?? "unknown"
        let kernel = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let fields = ["cpu": cpu, "cores": String(cores), "memory": memory, "kernel": kernel]
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// The value after `key:` on the first matching line of a /proc file.
    static func firstValue(in path: String, key: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
