#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processes of a process group that are still alive (not zombies), found in `/proc`:
/// the members besides `leader` (which the supervisor keeps as an unreaped zombie while it
/// ends the group, so that the group id cannot be reused meanwhile).
///
/// A zombie counts as gone: it is dead, only waiting for its parent (or init) to reap it.
/// One pass reads `/proc/PID/stat` of every process (about 1 ms for a few hundred), without
/// allocating per process.
func liveGroupMembers(_ group: pid_t, except leader: pid_t) -> [pid_t] {
    guard let proc = opendir("/proc") else { return [] }
    defer { closedir(proc) }
    var members: [pid_t] = []
    var path = [CChar](repeating: 0, count: 32)
    var stat = [UInt8](repeating: 0, count: 512)
    while let entry = readdir(proc) {
        // The entry's name as a pid: digits only.
        let pid: pid_t? = withUnsafeBytes(of: entry.pointee.d_name) { name in
            var value: Int64 = 0
            var digits = 0
            for byte in name {
                if byte == 0 { break }
                guard byte >= 0x30 && byte <= 0x39, digits < 10 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
                digits += 1
            }
            return digits > 0 ? pid_t(truncatingIfNeeded: value) : nil
        }
        guard let pid, pid != leader else { continue }
        // "/proc/" + the name + "/stat"
        var length = 0
        for byte in "/proc/\(pid)/stat".utf8 where length < path.count - 1 {
            path[length] = CChar(bitPattern: byte)
            length += 1
        }
        path[length] = 0
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { continue }  // ended meanwhile
        let count = stat.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard count > 0, let fields = statFields(stat[0..<count]) else { continue }
        if fields.group == group && fields.state != UInt8(ascii: "Z") && fields.state != UInt8(ascii: "X") {
            members.append(pid)
        }
    }
    return members
}

/// The state letter and the process group of a `/proc/PID/stat` line,
/// "PID (COMM) STATE PPID PGRP ...": COMM may hold spaces and parentheses, so the fields are
/// counted from the last ')'.
func statFields(_ line: ArraySlice<UInt8>) -> (state: UInt8, group: pid_t)? {
    guard let paren = line.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let fields = line[(paren + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 4, omittingEmptySubsequences: true)
    guard fields.count >= 3, let state = fields[0].first else { return nil }
    var group: Int64 = 0
    for byte in fields[2] {
        guard byte >= 0x30 && byte <= 0x39 else { return nil }
        group = group * 10 + Int64(byte - 0x30)
    }
    return (state, pid_t(truncatingIfNeeded: group))
}
