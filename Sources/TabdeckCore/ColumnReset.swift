extension TableState {
    /// `column reset`: forgets the user's column customization of this table: every column of
    /// the plugin's description is shown, in the plugin's order, at its automatic width.
    public mutating func resetColumns() {
        view.columns = description.columns.map { ColumnCustomization(id: $0.id) }
    }
}
