import ArgumentParser

/// `tabdeck-bench`: in-process benchmarks that `Scripts/bench` runs and tabulates.
///
/// Each subcommand measures one thing and prints its figures as one JSON object per line,
/// so the driver script can take medians over repeated runs and print the table.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tabdeck-bench",
        abstract: "Benchmarks for Tabdeck (run by Scripts/bench).",
        subcommands: [
            MachineCommand.self,
            CodecCommand.self,
            RoundtripCommand.self,
        ]
    )
}
