import Foundation
import Logging
import TabdeckCore
import TabdeckProtocol
import TabdeckSpool
import TabdeckStore
import TabdeckSupervisor
import TabdeckTerminal
import TabdeckTime

/// Carrying out the core's effects: plugins started and spoken to, state saved, files written.
extension Runtime {
    func dispatch(_ event: Event) {
        execute(workspace.update(event, now: now()))
    }

    func execute(_ effects: [Effect]) {
        for effect in effects { perform(effect) }
    }

    func perform(_ effect: Effect) {
        switch effect {
        case .startPlugin(let tab):
            guard let config = workspace.config.tab(tab) else { return }
            var env = config.env
            env["TABDECK_PROTOCOL"] = String(ProtocolVersion.current)
            if env["TABDECK_BIN_DIR"] == nil, let dir = Runtime.executableDirectory { env["TABDECK_BIN_DIR"] = dir }
            if env["TABDECK_CACHE_DIR"] == nil { env["TABDECK_CACHE_DIR"] = Locations.cacheDirectory(stateDirectory: stateDirectory) }
            let launch = launchCommand(config, environment: env)
            var spec = PluginSpec(tab: tab, command: launch.argv, environment: launch.environment,
                                  workingDirectory: workspace.config.directory, logFile: logFile(tab: tab),
                                  dataDescriptor: dataDescriptors[tab])
            spec.logRotation = logRotation
            do { try endpoint(tab).start(spec) } catch {
                // The core says which tab: the reason alone.
                queue.put(.plugin(tab: tab, .spawnFailed(error.reason)))
            }
        case .send(let tab, let message):
            do { try endpoint(tab).send(message) } catch {
                appendLog(tab, "tabdeck: could not send to plugin: \(error)")
                // A request that never left is answered now, so that nothing waits for it forever.
                if case .request(let id, let method, _) = message {
                    let failure = RPCError(code: RPCError.internalError, message: "could not send \"\(method)\" to the plugin: \(error)")
                    queue.put(.plugin(tab: tab, .message(.failure(id: id, error: failure))))
                }
            }
        case .stopPlugin(let tab):
            endpoints[tab]?.stop()
        case .killPlugin(let tab):
            endpoints[tab]?.kill()
        case .saveLayout(let layout): persist { () throws(StoreError) in try database.saveLayout(layout) }
        case .resetLayout: persist { () throws(StoreError) in try database.resetLayout() }
        case .saveView(let tab, let table, let view):
            persist { () throws(StoreError) in try database.saveView(view, tab: tab, table: table) }
        case .log(let tab, let line): appendLog(tab, line)
        case .notice(let tab, let text): say(.notice("tabdeck: tab \(tab): \(Sanitizer.clean(text))"))
        case .wake(let at): wakeAt = min(wakeAt ?? at, at)
        case .exportBegin(let path, let format, let columns):
            let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            do { export = try ExportWriter(path: full, format: format, columns: columns) } catch {
                queue.put(.effectFailed("\(error)"))  // names the export and the file
            }
        case .exportRows(let rows):
            guard let export else { return }
            do { try export.write(rows) } catch {
                self.export = nil
                queue.put(.effectFailed("export: writing \(export.path) failed: \(error.localizedDescription)"))
            }
        case .exportEnd:
            try? export?.finish()
            export = nil
        case .showLog(let tab):
            let text = tailOfLog(tab, lines: 50)
            report(.success(CommandOutput(text: text.isEmpty ? "(log of \(tab) is empty)" : text,
                                          json: ["tab": .string(tab), "log": .string(text)])))
        case .clipboard(let text):
            clipboardMissed = !say(.clipboard(Clipboard.osc52(text)))
        case .commandDone(var out):
            if clipboardMissed {
                clipboardMissed = false
                out.text += " (stdout is not a terminal: nothing reached a clipboard)"
                out.json = ["copied": out.json, "clipboard": false]
            }
            if let persistFailure { report(.failure(persistFailure)) } else { report(.success(out)) }
        case .commandFailed(let message):
            report(.failure(message))
        case .quit:
            quitRequested = true
        }
    }

    func persist(_ body: () throws(StoreError) -> Void) {
        do { try body() } catch { persistFailure = "not saved: \(error.description)" }
    }
}
