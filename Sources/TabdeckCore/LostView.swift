import TabdeckProtocol

/// A plugin that crashed or hung on a `rows` request of a sorted or filtered view would get the
/// same view again from its restart (the session is replayed, PluginLifecycle.swift), and
/// likely fail the same way. The restart does not do that silently: its notice names the sort
/// and the filter whose request failed and the commands that clear them.
extension Workspace {
    /// `tab`'s plugin is going away with this request unanswered (timed out, ignored its cancel,
    /// or still running when the process died): remembered when it was a page of the view shown,
    /// in its current order, under a sort or a filter.
    mutating func noteLostRequest(_ tab: String, _ purpose: RequestPurpose) {
        guard case .rows(let key, let generation, _) = purpose, let t = tabs[tab]?.table,
              t.key == key, t.generation == generation, !t.view.sort.isEmpty || t.view.isFiltered else { return }
        tabs[tab]!.lostViewRequest = true
    }

    /// What the restart's notice says when the view's last request was lost: `the last request
    /// with sort name asc and filter "ada" failed: REASON; :sort clear / :filter clear` (nil
    /// when the view has neither any more).
    func lostViewNotice(_ t: TableState, reason: String) -> String? {
        var what: [String] = []
        var clear: [String] = []
        if !t.view.sort.isEmpty { what.append("sort \(SortOrder.describe(t.view.sort))"); clear.append(":sort clear") }
        if let filter = t.view.filter { what.append("filter \"\(Sanitizer.clean(filter))\""); clear.append(":filter clear") }
        if !t.view.where.isEmpty { what.append("where \(WhereText.shown(t.view.where))"); clear.append(":where clear") }
        guard !what.isEmpty else { return nil }
        return "the last request with \(what.joined(separator: " and ")) failed: \(reason); \(clear.joined(separator: " / "))"
    }
}
