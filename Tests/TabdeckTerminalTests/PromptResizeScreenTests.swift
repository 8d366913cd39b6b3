import Testing
import TabdeckCore
@testable import TabdeckTerminal

/// A resize while the `:` prompt is open redraws the workspace at the new size and then the
/// prompt's line on the new bottom line (the shell does both: `FullScreen.redrawUnderPrompt`),
/// down to 10×3 and back; once the prompt is closed a resize is a plain redraw.
@Suite struct PromptResizeScreenTests {
    @Test func aResizeAtThePromptRedrawsTheWorkspaceThenThePrompt() {
        var s = ScreenScene(width: 80, height: 12)
        s.press(.char(":"))
        #expect(s.prompts == [""])
        #expect(s.model.promptOpen)
        for (width, height) in [(40, 8), (10, 3), (120, 20)] {
            let redraws = s.redraws
            let effects = s.model.update(.resize(width: width, height: height), workspace: s.scene.ws)
            #expect(effects.firstIndex(of: .redraw)! < effects.firstIndex(of: .redrawPrompt)!, "the workspace first, then the prompt")
            s.apply(effects)
            #expect(s.redraws == redraws + 1)
            #expect(s.lines.count == height && s.lines.allSatisfy { TextFit.width($0) <= width })
        }
        #expect(s.promptRedraws == 3)
        #expect(s.lines[0].hasPrefix(" Data"), "back at 120 columns the sidebar shows: \(s.lines[0])")
        s.input(.promptClosed(nil))
        #expect(!s.model.promptOpen)
        s.input(.resize(width: 80, height: 12))
        #expect(s.promptRedraws == 3, "no prompt to redraw once it is closed")
    }
}
