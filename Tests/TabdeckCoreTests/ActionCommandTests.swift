import Testing
import TabdeckCore
import TabdeckProtocol

/// `action NAME [--yes] [--set FIELD=VALUE]...` and `row move up|down`: parsing, rendering, and
/// the protocol's new action fields (`destructive`, `rows`, `hotkey`, `input`) and `move`.
@Suite struct ActionCommandTests {
    @Test func parsesFormValuesAndRowMoves() throws {
        #expect(try CommandParser.parse("action add --set name=Ada --set 'note=a b' --yes")
                == .action("add", confirmed: true, input: ["name": "Ada", "note": "a b"]))
        #expect(try CommandParser.parse("action add --set age=") == .action("add", confirmed: false, input: ["age": ""]))
        #expect(try CommandParser.parse("action add --set 'expr=a=b'") == .action("add", confirmed: false, input: ["expr": "a=b"]))
        #expect(try CommandParser.parse("action delete") == .action("delete", confirmed: false, input: [:]))
        #expect(try CommandParser.parse("row move up") == .rowMove(.up))
        #expect(try CommandParser.parse("row move down") == .rowMove(.down))
    }

    @Test func badActionLinesSayWhatIsWrong() {
        func message(_ line: String) -> String {
            do { _ = try CommandParser.parse(line); return "parsed" } catch { return error.description }
        }
        #expect(message("action add --set name") == "--set needs FIELD=VALUE, as in --set name=Ada")
        #expect(message("action add --set") == "--set needs FIELD=VALUE, as in --set name=Ada")
        #expect(message("action add --set =x") == "--set needs FIELD=VALUE, as in --set name=Ada")
        #expect(message("action add --set a=1 --set a=2") == "field a is set twice")
        #expect(message("action add delete") == "usage: action NAME [--yes] [--set FIELD=VALUE]...")
        #expect(message("row move left") == "usage: row move up|down")
        #expect(message("row mvoe up") == #"unknown row command "mvoe" (did you mean "move"?)"#)
    }

    @Test(arguments: CommandTextTests.awkward)
    func formValuesReadBackAsThemselves(word: String) throws {
        var commands: [Command] = [.action("add", confirmed: false, input: ["f": word]),
                                   .action(word, confirmed: true, input: ["a": word, "b": "2"])]
        if !word.isEmpty && !word.contains("=") { commands.append(.action("x", confirmed: false, input: [word: word])) }
        for command in commands + [.rowMove(.up), .rowMove(.down)] {
            let back = try CommandParser.parse(command.text)
            #expect(back == command, "\(command) → \(command.text) → \(String(describing: back))")
        }
    }

    static let addJSON: JSONValue = [
        "id": "add", "title": "Add person", "rows": "none", "hotkey": "+",
        "input": [["id": "name", "title": "Name", "required": true],
                  ["id": "age", "type": "integer", "default": 30],
                  ["id": "score", "type": "number"],
                  ["id": "active", "type": "boolean", "default": true],
                  ["id": "state", "type": "enum", "values": ["todo", "done"]]],
    ]

    @Test func decodesTheNewActionFields() throws {
        let add = try ActionSpec(reader: JSONReader(Self.addJSON, path: "a"))
        #expect(add.rows == .none && add.hotkey == "+" && !add.asks && !add.multiple)
        #expect(add.input.map(\.id) == ["name", "age", "score", "active", "state"])
        #expect(add.input.map(\.type) == [.text, .integer, .number, .boolean, .enumeration])
        #expect(add.input.map(\.defaultText) == ["", "30", "", "true", "todo"])
        #expect(try ActionSpec(reader: JSONReader(add.json, path: "a")) == add)
        let delete = try ActionSpec(reader: JSONReader(["id": "delete", "destructive": true], path: "a"))
        #expect(delete.asks && delete.destructive && !delete.confirm && delete.rows == .many)
        // `multiple` keeps working; `rows` wins over it.
        #expect(try ActionSpec(reader: JSONReader(["id": "one", "multiple": false], path: "a")).rows == .one)
        #expect(try ActionSpec(reader: JSONReader(["id": "one", "multiple": false, "rows": "many"], path: "a")).rows == .many)
        let table = try TableDescription(["table": "root", "columns": [["id": "name"]], "total": 1, "movable": true])
        #expect(table.movable)
        #expect(try TableDescription(table.json) == table)
        #expect(try PluginCapabilities(reader: JSONReader(["move": true], path: "c")).move)
    }

    @Test func badActionFieldsAreNamedByTheirPath() {
        func reason(_ value: JSONValue) -> String {
            do { _ = try TableDescription(["table": "root", "columns": [["id": "name"]], "total": 1, "actions": [value]]); return "decoded" }
            catch { return "\(error)" }
        }
        #expect(reason(["id": "a", "hotkey": "ab"]).contains("result.actions[0].hotkey"))
        #expect(reason(["id": "a", "hotkey": "ab"]).contains("one printable character"))
        #expect(reason(["id": "a", "rows": "some"]).contains("result.actions[0].rows"))
        #expect(reason(["id": "a", "input": [["id": "s", "type": "enum"]]]).contains("result.actions[0].input[0].values"))
        #expect(reason(["id": "a", "input": [["id": "n", "type": "integer", "default": "x"]]]).contains("result.actions[0].input[0].default"))
        #expect(reason(["id": "a", "input": [["id": "n", "type": "date"]]]).contains("unknown field type \"date\""))
        #expect(reason(["id": "a", "input": [["id": "a=b"]]]).contains("without \"=\""))
        #expect(reason(["id": "a", "input": [["id": "n"], ["id": "n"]]]).contains("duplicate field id \"n\""))
        do {
            _ = try TableDescription(["table": "root", "columns": [["id": "name"]], "total": 1, "actions": [["id": "a"], ["id": "a"]]])
            Issue.record("duplicate action ids decoded")
        } catch {
            #expect("\(error)".contains("duplicate action id \"a\""))
        }
    }

    @Test func typedValuesBecomeTheInputOrAnErrorNamingTheField() throws {
        let add = try ActionSpec(reader: JSONReader(Self.addJSON, path: "a"))
        let input = try add.inputObject(["name": "Ada", "age": "36", "score": "2.5", "active": "no", "state": "done"])
        #expect(JSONValue.object(input) == ["name": "Ada", "age": 36, "score": 2.5, "active": false, "state": "done"])
        // Fields not typed take their default; empty ones are left out.
        #expect(JSONValue.object(try add.inputObject(["name": "Bo"])) == ["name": "Bo", "age": 30, "active": true, "state": "todo"])
        #expect(JSONValue.object(try add.inputObject(["name": "Bo", "age": "", "active": "", "state": ""])) == ["name": "Bo"])
        func error(_ typed: [String: String]) -> String {
            do { _ = try add.inputObject(typed); return "accepted" } catch { return error.description }
        }
        #expect(error([:]) == "Name: required")
        #expect(error(["name": "A", "age": "x"]) == #"age: expected a whole number, got "x""#)
        #expect(error(["name": "A", "score": "1e999"]) == #"score: expected a number, got "1e999""#)
        #expect(error(["name": "A", "active": "maybe"]) == #"active: expected yes or no, got "maybe""#)
        #expect(error(["name": "A", "state": "doing"]) == #"state: expected one of todo, done, got "doing""#)
        #expect(error(["name": "A", "agee": "3"]) == "agee: no such field in action add (fields: name, age, score, active, state)")
    }

    @Test func moveRequestsNameTheNeighbour() throws {
        let up = MoveRequest(table: "root", row: "p3", place: .before, target: "p2")
        #expect(up.json == ["table": "root", "row": "p3", "before": "p2"])
        #expect(try MoveRequest(up.json) == up)
        #expect(try MoveRequest(["table": "root", "row": "p3", "after": "p4"]).place == .after)
        #expect(throws: JSONFieldError.self) { try MoveRequest(["table": "root", "row": "p3"]) }
        #expect(throws: JSONFieldError.self) { try MoveRequest(["table": "root", "row": "p3", "before": "a", "after": "b"]) }
    }
}
