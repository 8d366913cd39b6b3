/// The parser's stack of values of the arrays and objects still open.
///
/// A container's members are moved (not copied) into an exactly sized array when it closes,
/// so each value is retained once however deep it sits; a Swift array as the stack would
/// retain each value again for the copy and release it when popped. A plain struct over
/// raw memory, so that using it costs no reference counting: its owner calls ``free()``.
struct JSONValueStack {
    private var storage: UnsafeMutablePointer<JSONValue>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    /// Drops what is left (after an error) and frees the memory.
    func free() {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always) mutating func push(_ value: consuming JSONValue) {
        if count == capacity { grow() }
        (storage + count).initialize(to: value)
        count += 1
    }

    /// Replaces the value at `index` (0-based from the bottom).
    func replace(at index: Int, with value: JSONValue) {
        storage[index] = value
    }

    /// Moves the values from `base` to the top into a new array and pops them.
    @inline(__always) mutating func pop(from base: Int) -> [JSONValue] {
        let n = count - base
        if n == 0 { return [] }
        // Not `Array(unsafeUninitializedCapacity:)`: its allocation runs unspecialized in the
        // standard library and looks up the array's type metadata on every call (about 5% of
        // decoding a page); `reserveCapacity` is specialized here.
        var items: [JSONValue] = []
        items.reserveCapacity(n)
        for i in base..<count { items.append((storage + i).move()) }
        count = base
        return items
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<JSONValue>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = bigger
        capacity *= 2
    }
}

extension JSONValueStack {
    /// Drops the values from `base` to the top (a parse given up half way).
    mutating func drop(to base: Int) {
        (storage + base).deinitialize(count: count - base)
        count = base
    }
}
