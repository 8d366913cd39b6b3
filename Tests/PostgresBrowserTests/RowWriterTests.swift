@testable import PostgresBrowser
import PostgresNIO
import Testing

/// The row writer's integer reading agrees with `Int64(text)`, which the usual path uses.
@Suite struct RowWriterTests {
    @Test func integersAreReadAsInt64ReadsTheirText() {
        let texts = ["0", "-0", "7", "-7", "+7", "42", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                     "-9223372036854775809", "99999999999999999999", "", "-", "+", "1.5", "1e3", " 1", "1 ", "0x10", "007", "١٢"]
        for text in texts {
            #expect(PGRowWriter.integer(ByteBuffer(string: text)) == Int64(text), "\(text)")
        }
    }
}
