import TabdeckCore

/// Command lines typed at the prompt or piped in.
///
/// Invariant: what the parser accepts, rendered back to text (``Command/text``) and parsed
/// again, is the same command: ids and values with quotes, backslashes and spaces included.
/// Errors name what is wrong and hold no raw control character beyond what was typed.
enum CommandTarget {
    static let target = FuzzTarget(
        name: "command",
        summary: "the command parser: an accepted line rendered back and parsed again is the same command",
        check: check)

    static func check(_ bytes: [UInt8]) -> FuzzViolation? {
        let line = String(decoding: bytes, as: UTF8.self)
        let parsed: Command?
        do { parsed = try CommandParser.parse(line) } catch {
            return error.message.isEmpty ? FuzzViolation("command", "an error says what is wrong", "\(excerpt(bytes))") : nil
        }
        guard let command = parsed else { return nil }
        let text = command.text
        let again: Command?
        do { again = try CommandParser.parse(text) } catch {
            return FuzzViolation("command", "a command's text parses", "\(excerpt(bytes)) → \(String(reflecting: text)): \(error)")
        }
        guard again == command else {
            return FuzzViolation("command", "parse(text(c)) == c",
                                 "\(excerpt(bytes)) → \(command) → \(String(reflecting: text)) → \(String(describing: again))")
        }
        return nil
    }
}
