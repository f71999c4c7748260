import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// Files, where Switchboard has them: profile pictures uploaded to the server
/// (`/v1/media/<id>`). A file's id is its media id; `getFile` names it
/// `photos/<id>`, downloaded from `/file/bot<token>/photos/<id>`.
enum TelegramFiles {
    /// The user's avatar as their one profile photo, when it is stored on this server.
    static func getUserProfilePhotos(_ call: TelegramCall) async throws -> Response {
        let user = try await call.user()
        let offset = try call.parameters.int("offset") ?? 0
        guard user.avatarURL.hasPrefix("/v1/media/"), offset == 0,
            let media = try await call.core.store.media(id: String(user.avatarURL.dropFirst("/v1/media/".count)))
        else {
            return try TelegramJSON.success(TGUserProfilePhotos(totalCount: 0, photos: []))
        }
        let (width, height) = ImageSize.of(media.bytes)
        let size = TGPhotoSize(fileId: media.id, fileUniqueId: media.id, width: width, height: height, fileSize: media.bytes.count)
        return try TelegramJSON.success(TGUserProfilePhotos(totalCount: 1, photos: [[size]]))
    }

    static func getFile(_ call: TelegramCall) async throws -> Response {
        let id = try call.parameters.requiredString("file_id")
        guard id.count <= 64, let media = try await call.core.store.media(id: id) else {
            throw TelegramError.badRequest("invalid file_id")
        }
        return try TelegramJSON.success(
            TGFile(fileId: media.id, fileUniqueId: media.id, fileSize: media.bytes.count, filePath: "photos/\(media.id)"))
    }

    /// `GET /file/bot<token>/photos/<id>`: the bytes, through the `/v1/media` route.
    static func download(_ path: String, session: Session, core: ServerServices) async throws -> Response {
        guard path.hasPrefix("photos/") else { throw TelegramError(404, "Not Found") }
        let id = String(path.dropFirst("photos/".count))
        let request = Request(method: .get, path: "/v1/media/\(id)")
        do {
            return try await SystemRoutes.media(
                RequestContext(request: request, parameters: ["id": id], session: session, core: core))
        } catch let error as APIError where error.code == .notFound {
            throw TelegramError(404, "Not Found")
        }
    }
}

/// The pixel size of a PNG, GIF or JPEG from its header (0×0 when it cannot tell).
enum ImageSize {
    static func of(_ bytes: [UInt8]) -> (Int, Int) {
        func be16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return (be32(16), be32(20)) }
        if bytes.count >= 10, bytes.starts(with: [0x47, 0x49, 0x46]) {
            return (Int(bytes[6]) | Int(bytes[7]) << 8, Int(bytes[8]) | Int(bytes[9]) << 8)
        }
        if bytes.count >= 4, bytes.starts(with: [0xFF, 0xD8]) {
            // JPEG: walk the segments to a start-of-frame.
            var index = 2
            while index + 9 < bytes.count, bytes[index] == 0xFF {
                let marker = bytes[index + 1]
                let length = be16(index + 2)
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return (be16(index + 7), be16(index + 5))
                }
                index += 2 + length
            }
        }
        return (0, 0)
    }
}
