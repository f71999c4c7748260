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
    /// name ends this one (a kick-out).
    public var device: String

    /// A configuration with the usual defaults.
    public init(
        server: String, transport: any HTTPTransport = IMClient.sharedTransport,
        client: IMClient.Configuration = IMClient.Configuration(), events: EventStreamOptions = EventStreamOptions(),
        profileStore: ProfileStore = ProfileStore(), widths: WidthTable = .standard, mouse: Bool = false,
        device: String = "chat@" + ProcessInfo.processInfo.hostName
    ) {
        self.server = server
        self.transport = transport
        self.client = client
        self.events = events
        self.profileStore = profileStore
        self.widths = widths
        self.mouse = mouse
        self.device = device
    }
}
