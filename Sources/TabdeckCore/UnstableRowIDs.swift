import TabdeckProtocol

/// A table whose description says `"rowIds": "unstable"` (PROTOCOL.md 10.1): its ids may name
/// another row after a sort, a filter or a change of the data (positions in a view without a
/// key). The host never acts on such an id: no selection (`select`, `unselect`, `select all`,
/// Space, a click on the mark column), no row action and no `copy selection`; a stored
/// selection is dropped when the table opens. The cursor follows its offset, not its row,
/// across a sort, a filter, an invalidation and a restart (CursorFollow.swift). What works by
/// position keeps working: the cursor, `copy row`, `copy cell`, `show`, `export` and find.
extension TableState {
    /// Whether the table's row ids may name another row later.
    public var hasUnstableRowIDs: Bool { description.rowIDs == .unstable }

    /// Why selection and row actions are off on this table; nil when its ids are stable.
    public var unstableRowIDsMessage: String? {
        guard hasUnstableRowIDs else { return nil }
        let title = Sanitizer.clean(description.title ?? label)
        return "\"\(title)\" has no stable row ids (a view without a key): no selection or row actions"
    }

    /// Throws ``unstableRowIDsMessage`` for a command that would act on row ids.
    func requireStableRowIDs() throws(CommandError) {
        if let message = unstableRowIDsMessage { throw CommandError(message) }
    }
}
