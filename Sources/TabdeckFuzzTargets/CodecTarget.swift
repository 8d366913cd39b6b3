import Foundation
import TabdeckProtocol

/// The protocol codec, plugin to host: one line as a plugin writes it.
///
/// - Whatever ``MessageCodec/decode(_:)-([UInt8])`` accepts re-encodes and decodes to the same
///   message.
/// - Differentially, the hand-written ``JSONParser`` and Foundation's `JSONSerialization`
///   accept and reject the same texts and agree on the values, except where the protocol
///   deliberately differs (``FoundationJSON/documentedDifference(_:)``).
enum CodecTarget {
    static let target = FuzzTarget(
        name: "codec",
        summary: "a plugin's line: decode, re-encode, decode again; JSONParser against JSONSerialization",
        check: check)

    static func check(_ line: [UInt8]) -> FuzzViolation? {
        if let message = try? MessageCodec.decode(line) {
            let encoded = MessageCodec.encode(message)
            guard let again = try? MessageCodec.decode(encoded) else {
                return FuzzViolation("codec", "an accepted message re-encodes to a decodable line",
                                     "\(excerpt(line)) re-encoded as \(excerpt(encoded)) is rejected")
            }
            guard again == message else {
                return FuzzViolation("codec", "decode(encode(m)) == m", "\(excerpt(line)): \(message) became \(again)")
            }
        }
        return FoundationJSON.compare(line)
    }
}
