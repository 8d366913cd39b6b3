import Foundation

/// Where spool files live and how leftovers of a crashed host are found.
///
/// A spool is the folder `<state>/spool/<pid>-<tab>`: the host's pid first, so that a host
/// can tell its own files from those of another running host sharing the state folder.
public enum SpoolFolder {
    /// The spool folder inside a state folder.
    public static func folder(stateDirectory: String) -> String { stateDirectory + "/spool" }

    /// The spool folder of `tab` for the host `pid` (tab ids are reduced to safe characters).
    public static func path(folder: String, tab: String, pid: Int32) -> String {
        let safe = String(tab.unicodeScalars.map { s -> Character in
            (s.properties.isAlphabetic && s.isASCII) || ("0"..."9").contains(s) || s == "-" || s == "_" ? Character(s) : "_"
        })
        return folder + "/\(pid)-\(safe)"
    }

    /// Deletes the spools of hosts that are no longer running (a crash or `kill -9` left
    /// them behind). Those of running hosts are left alone.
    /// - Returns: the names deleted.
    @discardableResult
    public static func removeStale(folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for name in names {
            guard let dash = name.firstIndex(of: "-"), let pid = Int32(name[..<dash]) else { continue }
            if pid == getpid() { continue }                     // this host's own (another runtime)
            if kill(pid, 0) == 0 || errno == EPERM { continue }  // another host still running
            if (try? FileManager.default.removeItem(atPath: folder + "/" + name)) != nil { removed.append(name) }
        }
        return removed
    }
}
