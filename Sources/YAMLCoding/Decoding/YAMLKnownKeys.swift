/// A `Decodable` type that lists the keys it accepts, for better unknown-key messages.
///
/// The strict-key check knows only the keys a type asked for while decoding. A type that
/// reads some keys only in some cases (say `to` only when `type: forward`) can list all
/// of them here: they are then offered as "did you mean" suggestions, and an unread one
/// is reported as "not used here" rather than "unknown". `CodingKey` enums that are
/// `CaseIterable` supply their cases the same way without this protocol.
public protocol YAMLKnownKeys {
    /// Every key the type may read, spelled as in the text (`per_user` even with
    /// `.convertFromSnakeCase`).
    static var yamlKnownKeys: [String] { get }
}
