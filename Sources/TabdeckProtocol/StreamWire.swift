/// The wire names of a streamed `rows` answer (PROTOCOL.md 11.3.1), for the host's spool and
/// the conformance checker alike.
public enum StreamWire {
    /// The notification carrying a part of a streamed answer.
    public static let chunkMethod = "rows/chunk"
    /// The `limit` of a stream request: no limit.
    public static let unlimited = 2_147_483_647
}
