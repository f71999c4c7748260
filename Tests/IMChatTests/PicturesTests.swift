import Foundation
import IMClient
import IMProtocol
import TestSupport
import Testing

@testable import IMChat

/// Issue 27, item 6: avatars drawn as pictures where the terminal can (the kitty
/// graphics protocol, or sixel when the terminal says it draws it), initials elsewhere,
/// and never the raw media URL.
@Suite struct PicturesTests {
    /// A 16×16 PNG: red and blue squares.
    static let png = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAIElEQVR42mP4z8CAFTE0/MeORjXQRAMuCZwGjWqghQYAl6g/EJZUMfIAAAAASUVORK5CYII=")!

    /// `png` in a file of its own.
    static func pngFile() throws -> String {
        let path = TestServer.temporaryDirectory() + "/avatar.png"
        try Self.png.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theTerminalSaysHowItDrawsPictures() {
        #expect(TerminalGraphics.fromEnvironment(["TERM": "xterm-kitty"]) == .kitty)
        #expect(TerminalGraphics.fromEnvironment(["TERM_PROGRAM": "WezTerm"]) == .kitty)
        #expect(TerminalGraphics.fromEnvironment(["TERM": "xterm-256color", "TMUX": "/tmp/t,1,0"]) == TerminalGraphics.none)
        #expect(TerminalGraphics.fromEnvironment(["TERM": "xterm-256color"]) == nil)  // ask it
        #expect(TerminalGraphics.fromEnvironment(["TERM": "xterm-kitty", "SWITCHBOARD_GRAPHICS": "none"]) == TerminalGraphics.none)
        #expect(TerminalGraphics.fromAttributes(Array("\u{1B}[?62;4;6;22c".utf8)) == .sixel)
        #expect(TerminalGraphics.fromAttributes(Array("\u{1B}[?62;1;6;22c".utf8)) == TerminalGraphics.none)
        #expect(TerminalGraphics.fromAttributes([]) == TerminalGraphics.none)  // no answer
    }

    @Test func anImageFileBecomesSixelGraphicsAndKittyChunks() throws {
        let path = try Self.pngFile()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let pixels = try #require(SixelCodec.load(path: path, maxWidth: 80, maxHeight: 60))
        #expect(pixels.width == 16 && pixels.height == 16)  // smaller than the box: as it is
        #expect(Array(pixels.rgb.prefix(3)) == [255, 0, 0])
        let fitted = try #require(SixelCodec.load(path: path, maxWidth: 8, maxHeight: 4))
        #expect(fitted.width == 4 && fitted.height == 4)  // fitted into the box, its shape kept
        #expect(pixels.rgb.count == pixels.width * pixels.height * 3)
        let sixel = try #require(SixelCodec.sixel(pixels))
        #expect(sixel.hasPrefix("\u{1B}P") && sixel.hasSuffix("\u{1B}\\"))
        let kitty = KittyImage.draw(pixels)
        #expect(kitty.hasPrefix("\u{1B}_Ga=T,f=24,s=\(pixels.width),v=\(pixels.height),C=1,q=2,m="))
        // Chunks of 4096 base64 bytes, the last one saying so.
        let chunks = kitty.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
        #expect(chunks.last?.hasPrefix("\u{1B}_Gm=0;") == true || chunks.count == 1)
        #expect(chunks.allSatisfy { ($0.split(separator: ";", maxSplits: 1).last?.count ?? 0) <= 4096 })
        #expect(SixelCodec.load(path: path + ".missing", maxWidth: 10, maxHeight: 10) == nil)
    }

    @Test func theRendererPlacesPicturesOnlyWhenTheyChange() {
        var kitty = ScreenRenderer(graphics: .kitty) { "<picture \($0.key)>" }
        var grid = CellGrid(width: 20, height: 5)
        grid.images = [ImagePlacement(key: "a", column: 2, row: 1, columns: 8, rows: 3)]
        let first = kitty.render(grid)
        #expect(first.contains(KittyImage.clear + "\u{1B}[2;3H<picture a>"))
        grid.put("x", column: 15, row: 0)
        #expect(!kitty.render(grid).contains("<picture"))  // unchanged placements: nothing to send
        grid.images = []
        #expect(kitty.render(grid).contains(KittyImage.clear))

        var sixel = ScreenRenderer(graphics: .sixel) { "<sixel \($0.key)>" }
        grid.images = [ImagePlacement(key: "a", column: 2, row: 1, columns: 8, rows: 3)]
        #expect(sixel.render(grid).contains("<sixel a>"))
        grid.put("y", column: 15, row: 4)
        #expect(!sixel.render(grid).contains("<sixel"))  // nothing under it changed
        grid.put("z", column: 3, row: 2)
        #expect(sixel.render(grid).contains("<sixel a>"))  // a cell under it was drawn: again
        grid.images = []
        let gone = sixel.render(grid)
        #expect(gone.contains("\u{1B}[2;3H"))  // the cells it covered are drawn anew
    }

    @Test func profileAsksForThePictureOnceAndShowsItInsteadOfInitials() {
        var model = Fixture.model()
        model.graphics = .kitty
        var alice = Fixture.alice
        alice.avatarURL = "/v1/media/abc123"
        _ = model.handle(.result(.loggedIn(alice)))
        _ = model.handle(.liveReady)
        let asked = model.handle(.key(.character("3")))
        #expect(asked == [.loadPicture("/v1/media/abc123")])
        #expect(model.handle(.key(.character("3"))) == [])  // asked once
        var grid = ChatView.render(model)
        #expect(grid.images.isEmpty && grid.text.contains(" AL "))
        _ = model.handle(.result(.picture("/v1/media/abc123", ready: true)))
        grid = ChatView.render(model)
        #expect(grid.images == [ImagePlacement(key: "/v1/media/abc123", column: 3, row: 2, columns: 8, rows: 3)])
        #expect(!grid.text.contains(" AL ") && !grid.text.contains("/v1/media"))
        #expect(grid.text.contains("Avatar      an image  (a)"))
        // Without graphics: initials, and nothing asked.
        var plain = Fixture.model()
        _ = plain.handle(.result(.loggedIn(alice)))
        #expect(plain.handle(.key(.character("3"))) == [])
        #expect(ChatView.render(plain).images.isEmpty)
    }

    @Test func anUploadedAvatarIsFetchedAndMadeReadyToDraw() async throws {
        try await withServer { server in
            let home = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let pictures = Pictures(graphics: .sixel)
            let runner = ChatEffectRunner(
                configuration: ChatConfiguration(server: server.baseURL, transport: TestClient.sharedTransport,
                                                 profileStore: ProfileStore(root: home)),
                pictures: pictures)
            _ = await runner.perform(.register(username: "alice", password: "alice-password"))
            let upload = try #require(try await runner.client?.uploadAvatar(Self.png))
            let url = upload.user.avatarURL
            guard case .picture(url, let ready)? = await runner.perform(.loadPicture(url)) else { throw TestFailure("no answer") }
            #expect(ready)
            let bytes = try #require(pictures.bytes(ImagePlacement(key: url, column: 0, row: 0, columns: 8, rows: 3)))
            #expect(bytes.hasPrefix("\u{1B}P"))
            // Kept in the avatar cache, readable by the owner only.
            #expect(FileManager.default.fileExists(atPath: ProfileStore(root: home).avatarCache.path(for: url)))
            guard case .picture(_, let missing)? = await runner.perform(.loadPicture("/v1/media/nothing-here")) else {
                throw TestFailure("no answer")
            }
            #expect(!missing)
        }
    }
}
