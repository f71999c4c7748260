import Foundation
import IMClient

/// Everything `switchboard chat` is started with.
public struct ChatConfiguration: Sendable {
    /// The server's base URL.
    public var server: String
    /// How requests reach it.
    public var transport: any HTTPTransport
    /// Timeouts and retries of the client.
    public var client: IMClient.Configuration
    /// How the live stream polls.
    public var events: EventStreamOptions
    /// The local store: last username, saved profiles and avatars.
    public var profileStore: ProfileStore
    /// The widths the screens measure with.
    public var widths: WidthTable
    /// Report the mouse wheel (it takes text selection from the terminal).
    public var mouse: Bool
    /// The device name of the logins: a new login of the same account on the same device
    /// name ends this one (a kick-out). `switchboard chat` makes one per home (and per
    /// terminal of a home), so other terminals and machines never end each other's.
    public var device: String
    /// Where the login is kept under the home (`ProfileStore` slot): the next start goes
    /// on without a password until Log out.
    public var loginSlot: String
    /// Ring the terminal's bell for a message that arrives out of sight.
    public var bell: Bool
    /// Show the unread count in the terminal's title.
    public var title: Bool
    /// How the terminal draws pictures; nil: ask the terminal at start.
    public var graphics: TerminalGraphics?

    /// A configuration with the usual defaults.
    public init(
        server: String, transport: any HTTPTransport = IMClient.sharedTransport,
        client: IMClient.Configuration = IMClient.Configuration(), events: EventStreamOptions = EventStreamOptions(),
        profileStore: ProfileStore = ProfileStore(), widths: WidthTable = .standard, mouse: Bool = false,
        device: String = "chat@" + ProcessInfo.processInfo.hostName, loginSlot: String = "chat", bell: Bool = false,
        title: Bool = false, graphics: TerminalGraphics? = TerminalGraphics.none
    ) {
        self.server = server
        self.transport = transport
        self.client = client
        self.events = events
        self.profileStore = profileStore
        self.widths = widths
        self.mouse = mouse
        self.device = device
        self.loginSlot = loginSlot
        self.bell = bell
        self.title = title
        self.graphics = graphics
    }
}
