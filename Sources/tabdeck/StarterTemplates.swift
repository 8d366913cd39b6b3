/// The plugin sources `tabdeck plugin new` writes for Python, Node and Swift: one small table
/// (typed columns: text, integer, decimal, bool, date, enum) that the SDK sorts, filters and pages.
/// `__NAME__` is the plugin's name.
enum StarterTemplates {
    static func python(_ name: String) -> String { pythonText.replacingOccurrences(of: "__NAME__", with: name) }
    static func node(_ name: String) -> String { nodeText.replacingOccurrences(of: "__NAME__", with: name) }
    static func swift(_ name: String) -> String { swiftText.replacingOccurrences(of: "__NAME__", with: name) }

    static let pythonText = #"""
        #!/usr/bin/env python3
        """__NAME__: a Tabdeck plugin (docs/PROTOCOL.md, protocol v1) on the Python SDK.

        tabdeck_plugin.py beside it is the SDK (one file, standard library only). Check the plugin:
            tabdeck plugin check -- python3 plugin.py
        """
        import os
        import sys

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from tabdeck_plugin import TablePlugin, column, row  # noqa: E402

        STATES = ["todo", "doing", "done"]
        DATA = [  # name, size, price, ripe, picked, state
            ("apple", 3, 1.25, True, "2024-05-01", "todo"),
            ("banana", 12, 0.5, False, "2024-04-12", "done"),
            ("cherry", 200, 4.75, True, "2024-06-30", "doing"),
            ("damson", None, 2.25, False, "2024-02-29", "todo"),
            ("elderberry", 7, None, False, None, "done"),
            ("fig", 40, 3.5, True, "2023-12-24", "doing"),
            ("grape", 150, 2.25, None, "2024-01-15", None),
            ("kiwi", 9, 0.75, True, "2024-03-03", "todo"),
        ]


        class Plugin(TablePlugin):
            name, version, title = "__NAME__", "0.1.0", "__NAME__"

            def capabilities(self):
                # The SDK sorts (several keys), filters and pages all_rows() for you.
                return {"sort": True, "multiSort": True, "filter": True}

            def columns(self):
                return [column("name", "Name"), column("size", "Size", "integer", align="right"),
                        column("price", "Price", "decimal", decimals=2), column("ripe", "Ripe", "bool"),
                        column("picked", "Picked", "date"), column("state", "State", "enum", values=STATES)]

            def all_rows(self):
                return [row(f"r{i}", list(cells)) for i, cells in enumerate(DATA)]


        if __name__ == "__main__":
            raise SystemExit(Plugin().run())

        """#

    static let nodeText = #"""
        #!/usr/bin/env node
        'use strict';
        // __NAME__: a Tabdeck plugin (docs/PROTOCOL.md, protocol v1) on the Node SDK.
        // tabdeck.js beside it is the SDK (one file, no dependencies). Check the plugin:
        //     tabdeck plugin check -- node plugin.js
        const { TablePlugin, column, row } = require('./tabdeck.js');

        const STATES = ['todo', 'doing', 'done'];
        const DATA = [ // name, size, price, ripe, picked, state
          ['apple', 3, 1.25, true, '2024-05-01', 'todo'],
          ['banana', 12, 0.5, false, '2024-04-12', 'done'],
          ['cherry', 200, 4.75, true, '2024-06-30', 'doing'],
          ['damson', null, 2.25, false, '2024-02-29', 'todo'],
          ['elderberry', 7, null, false, null, 'done'],
          ['fig', 40, 3.5, true, '2023-12-24', 'doing'],
          ['grape', 150, 2.25, null, '2024-01-15', null],
          ['kiwi', 9, 0.75, true, '2024-03-03', 'todo'],
        ];

        class Plugin extends TablePlugin {
          constructor() {
            super();
            this.name = '__NAME__';
            this.version = '0.1.0';
            this.title = '__NAME__';
          }

          // The SDK sorts (several keys), filters, pages and finds in allRows() for you.
          capabilities() { return { sort: true, multiSort: true, filter: true, find: true }; }

          columns() {
            return [column('name', { title: 'Name' }), column('size', { title: 'Size', type: 'integer', align: 'right' }),
              column('price', { title: 'Price', type: 'decimal', decimals: 2 }), column('ripe', { title: 'Ripe', type: 'bool' }),
              column('picked', { title: 'Picked', type: 'date' }), column('state', { title: 'State', type: 'enum', values: STATES })];
          }

          allRows() { return DATA.map((cells, i) => row(`r${i}`, cells)); }
        }

        new Plugin().run();

        """#

    static let swiftText = #"""
        // __NAME__: a Tabdeck plugin (docs/PROTOCOL.md, protocol v1) on TabdeckPluginKit.
        // Build it (swift build --product __NAME__), then check it:
        //     tabdeck plugin check -- .build/debug/__NAME__
        import TabdeckPluginKit
        import TabdeckProtocol

        /// One small table, sorted, filtered and paged by the kit's MemoryTable.
        struct Plugin: TableDataSource {
            let capabilities = PluginCapabilities(sort: true, multiSort: true, filter: true)
            static let columns = [
                ColumnSpec(id: "name", title: "Name"), ColumnSpec(id: "size", title: "Size", type: .integer),
                ColumnSpec(id: "price", title: "Price", type: .decimal), ColumnSpec(id: "ripe", title: "Ripe", type: .bool),
                ColumnSpec(id: "picked", title: "Picked", type: .date),
                ColumnSpec(id: "state", title: "State", type: .enumeration(["todo", "doing", "done"])),
            ]
            static let data: [[JSONValue]] = [
                ["apple", 3, 1.25, true, "2024-05-01", "todo"], ["banana", 12, 0.5, false, "2024-04-12", "done"],
                ["cherry", 200, 4.75, true, "2024-06-30", "doing"], ["damson", nil, 2.25, false, "2024-02-29", "todo"],
                ["elderberry", 7, nil, false, nil, "done"], ["fig", 40, 3.5, true, "2023-12-24", "doing"],
                ["grape", 150, 2.25, nil, "2024-01-15", nil], ["kiwi", 9, 0.75, true, "2024-03-03", "todo"],
            ]
            static let table = MemoryTable(columns: columns, rows: data.enumerated().map { Row(id: "r\($0.offset)", cells: $0.element) })

            func open(args: JSONValue) throws -> TableDescription {
                TableDescription(table: "root", title: "__NAME__", columns: Self.columns, total: Self.data.count)
            }

            func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
                try Self.table.page(request)
            }
        }

        PluginRunner(name: "__NAME__", version: "0.1.0", dataSource: Plugin(), clock: SystemClock()).run()

        """#
}
