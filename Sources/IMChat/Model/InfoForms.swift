import IMProtocol

extension ContactsState {
    /// How long and why, for a mute, kick or ban of one member.
    public struct ModerationForm: Sendable, Equatable {
        public var action: ModerationAction
        public var user: String
        /// `10m`, `2h`, `1d`; empty: until lifted (mute and ban only).
        public var duration = TextField("", limit: 16)
        /// Goes into the notice the group sees.
        public var reason = TextField("", limit: Limits.reasonLength.upperBound)
        /// The reason field has the keys (the duration field otherwise).
        public var focusReason: Bool

        /// A form for `action` on `user`, the first field focused.
        public init(action: ModerationAction, user: String) {
            self.action = action
            self.user = user
            focusReason = !action.takesDuration
        }

        /// The request the form stands for, or why it cannot be sent.
        public func request() -> Result<ModerationRequest, FormError> {
            var duration: ConfigDuration?
            let typed = self.duration.text.trimmingSpaces()
            if action.takesDuration, !typed.isEmpty {
                guard let value = ConfigDuration(typed), value.seconds >= 1 else {
                    return .failure(FormError(message: "'\(typed)' is not a duration: e.g. 10m, 2h or 1d (empty: until lifted)"))
                }
                duration = value
            }
            let reason = self.reason.text.trimmingSpaces()
            return .success(
                ModerationRequest(action: action, user: user, duration: duration, reason: reason.isEmpty ? nil : reason))
        }
    }

    /// Why a form cannot be sent.
    public struct FormError: Error, Sendable, Equatable {
        public var message: String
    }
}
