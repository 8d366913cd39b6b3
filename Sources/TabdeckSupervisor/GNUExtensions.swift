#if canImport(Glibc)
import Glibc

/// glibc functions that Swift's Glibc module hides (they need `_GNU_SOURCE`), looked up
/// once at run time. nil when this libc lacks them.
enum GNUExtensions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `pipe2(2)`: a pipe created with flags (O_CLOEXEC) atomically.
    static let pipe2: Pipe2? = symbol("pipe2")
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29).
    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34).
    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<F>(_ name: String) -> F? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: F.self)
    }
}
#endif
