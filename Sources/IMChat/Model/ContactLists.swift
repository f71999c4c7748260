import IMProtocol

/// Everything the Contacts screen loads from the server at once.
public struct ContactLists: Sendable, Equatable {
    /// Contacts (friends).
    public var users: [User]
    /// Groups this user belongs to.
    public var groups: [ConversationInfo]
    /// Rooms this user is present in.
    public var rooms: [ConversationInfo]
    /// Accounts this user blocks.
    public var blocked: [User]
    /// Invitations to this user, waiting.
    public var invites: [GroupInvite]
    /// Requests to groups this user decides.
    public var requests: [GroupJoinRequest]
    /// This user's own requests, waiting.
    public var myRequests: [GroupJoinRequest]
    /// Groups whose join requests this user decides (those that take requests and where
    /// the server let them list the requests).
    public var decides: Set<String>

    /// The lists; the ones not given are empty.
    public init(
        users: [User] = [], groups: [ConversationInfo] = [], rooms: [ConversationInfo] = [], blocked: [User] = [],
        invites: [GroupInvite] = [], requests: [GroupJoinRequest] = [], myRequests: [GroupJoinRequest] = [],
        decides: Set<String> = []
    ) {
        self.users = users
        self.groups = groups
        self.rooms = rooms
        self.blocked = blocked
        self.invites = invites
        self.requests = requests
        self.myRequests = myRequests
        self.decides = decides
    }
}
