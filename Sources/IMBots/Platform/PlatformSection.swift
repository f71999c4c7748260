import Foundation
import MatrixClient
import YAMLCoding

/// `platform: switchboard` (the default), or `platform: {matrix: {homeserver, user,
/// password_env | token_env | token_file, device, rooms, invites}}`.
struct PlatformSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable { case matrix }

    var platform: BotPlatform

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        guard try decoder.node().mapping != nil else {
            let name = try decoder.singleValueContainer().decode(String.self)
            switch name {
            case "switchboard":
                platform = .switchboard
            case "matrix":
                throw context.failure(.missingKey,
                    "platform matrix needs its homeserver, user and credential: write platform: {matrix: "
                        + "{homeserver: https://…, user: '@bot:example.org', password_env: NAME}} (docs/matrix.md)",
                    at: decoder.mark, path: decoder.codingPath)
            default:
                throw context.failure(.invalidValue, "unknown platform '\(name)': write switchboard or matrix",
                                      at: decoder.mark, path: decoder.codingPath)
            }
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        platform = .matrix(try container.decode(MatrixSection.self, forKey: .matrix).account)
    }
}

/// The `matrix:` block of `platform:`.
struct MatrixSection: Decodable, Sendable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case homeserver, user, passwordEnv, tokenEnv, tokenFile, device, rooms, invites
        // Read only to say where secrets go instead.
        case password, accessToken
    }

    var account: MatrixAccount

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var problems: [YAMLError] = []
        func problem(_ code: BotConfigError.Code, _ message: String, _ mark: YAMLMark) {
            problems.append(context.error(code, message, at: mark))
        }
        for key in [CodingKeys.password, .accessToken] where container.contains(key) {
            let node = try container.decode(YAMLNode.self, forKey: key)
            problem(.invalidValue,
                    "credentials never go in the bot file: name where the runner reads them instead "
                        + "(password_env: NAME, token_env: NAME or token_file: PATH, a file of mode 0600)", node.mark)
        }

        let homeserver = try container.decode(Located<String>.self, forKey: .homeserver)
        let url = homeserver.value.trimmingCharacters(in: .whitespaces)
        if !(url.hasPrefix("https://") || url.hasPrefix("http://")) || URL(string: url)?.host == nil {
            problem(.invalidValue, "homeserver '\(homeserver.value)' must be an http:// or https:// URL, "
                    + "e.g. https://matrix.example.org", homeserver.mark)
        }
        let user = try container.decode(Located<String>.self, forKey: .user)
        let userID = MatrixUserID(user.value)
        if userID == nil {
            problem(.invalidValue, "user '\(user.value)' is not a Matrix user id: write it @name:server "
                    + "(quoted in YAML: '@helpdesk:example.org')", user.mark)
        }

        let passwordVariable = try container.decodeIfPresent(Located<String>.self, forKey: .passwordEnv)
        let tokenVariable = try container.decodeIfPresent(Located<String>.self, forKey: .tokenEnv)
        let tokenFile = try container.decodeIfPresent(Located<String>.self, forKey: .tokenFile)
        let given = [passwordVariable, tokenVariable, tokenFile].compactMap { $0 }
        var credential: MatrixAccount.Credential?
        if given.count != 1 {
            problem(given.isEmpty ? .missingKey : .invalidValue,
                    "give exactly one of password_env (a variable holding the password), token_env (a variable "
                        + "holding an access token) or token_file (a file of mode 0600 holding one)",
                    given.dropFirst().first?.mark ?? decoder.mark)
        } else if let passwordVariable {
            credential = Self.variable(passwordVariable, problem).map { .passwordVariable($0) }
        } else if let tokenVariable {
            credential = Self.variable(tokenVariable, problem).map { .tokenVariable($0) }
        } else if let tokenFile {
            let path = tokenFile.value.hasPrefix("/") ? tokenFile.value
                : URL(fileURLWithPath: context.directory).appendingPathComponent(tokenFile.value).standardizedFileURL.path
            credential = .tokenFile(path)
        }

        let device = try container.decodeIfPresent(Located<String>.self, forKey: .device)
        if let device, device.value.isEmpty || device.value.utf8.count > 64
            || device.value.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            problem(.invalidValue, "device must be 1 to 64 printable ASCII characters without blanks", device.mark)
        }

        var rooms: [String: MatrixRoomAddress] = [:]
        for (name, room) in try container.decodeIfPresent([String: Located<String>].self, forKey: .rooms) ?? [:] {
            if let address = MatrixRoomAddress(room.value) {
                rooms[name.lowercased()] = address
            } else {
                problem(.invalidValue, "'\(room.value)' is not a Matrix room: write '!id:server' or '#alias:server' "
                        + "(quoted in YAML)", room.mark)
            }
        }
        let invites = try container.decodeIfPresent(Located<String>.self, forKey: .invites)
        var policy: MatrixAccount.Invites? = .ignore
        if let invites {
            policy = MatrixAccount.Invites(rawValue: invites.value)
        }
        if let invites, policy == nil {
            problem(.invalidValue, "invites is accept (join every room the bot is invited to) or ignore", invites.mark)
        }

        guard problems.isEmpty, let userID, let credential, let policy else {
            throw context.failure(problems, path: decoder.codingPath)
        }
        account = MatrixAccount(homeserver: url.hasSuffix("/") ? String(url.dropLast()) : url, user: userID,
                                credential: credential, device: device?.value, rooms: rooms, invites: policy)
    }

    /// An environment variable's name: letters, digits and `_`, not starting with a digit.
    private static func variable(_ name: Located<String>, _ problem: (BotConfigError.Code, String, YAMLMark) -> Void)
        -> String?
    {
        let text = name.value
        let valid = !text.isEmpty && !(text.first?.isNumber ?? true)
            && text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
        guard valid else {
            problem(.invalidValue, "'\(text)' is not an environment variable's name (letters, digits and _): name the "
                    + "variable, not its value", name.mark)
            return nil
        }
        return text
    }
}
