/// Setting the terminal's clipboard with OSC 52 in its plain form, `ESC ] 52 ; c ; BASE64 BEL`,
/// which tmux (`set-clipboard on`), kitty, WezTerm, iTerm2, foot, Alacritty and Windows Terminal
/// take, over SSH too. Pure: the shell writes the bytes.
public enum Clipboard {
    /// The escape sequence that puts `text` (UTF-8) on the clipboard (selection `c`).
    public static func osc52(_ text: String) -> [UInt8] {
        Array("\u{1b}]52;c;".utf8) + base64(Array(text.utf8)) + [0x07]
    }

    /// Standard Base64 (RFC 4648, with `=` padding) of `bytes`, as ASCII bytes.
    public static func base64(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        switch bytes.count - i {
        case 1:
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        case 2:
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")]
        default: break
        }
        return out
    }
}
