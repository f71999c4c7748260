import Synchronization

/// The pictures of avatars ready to draw, as the bytes that draw each in the terminal's
/// protocol, made once when an image arrives (off the loop that draws) and kept for the
/// run; bounded in count.
public final class Pictures: Sendable {
    /// The protocol the bytes are in.
    public let graphics: TerminalGraphics
    /// Cells a picture takes: the large avatars of Login, Profile and the info pages.
    public static let columns = 8
    public static let rows = 3
    /// Pictures kept at most.
    static let most = 200

    private let state = Mutex<(cell: (width: Int, height: Int), ready: [String: String], order: [String])>(
        ((10, 20), [:], []))

    /// Pictures for `graphics`.
    public init(graphics: TerminalGraphics) {
        self.graphics = graphics
    }

    /// The size of one cell in pixels, as the terminal reports it (ignored when it does not).
    public func setCellSize(width: Int, height: Int) {
        guard width > 0, height > 0 else { return }
        state.withLock { $0.cell = (width, height) }
    }

    /// Decodes the image file at `path` and keeps what draws it under `key`; false when
    /// it cannot be drawn (an unknown format: the initials stay).
    public func prepare(_ key: String, path: String) -> Bool {
        guard graphics != .none else { return false }
        let cell = state.withLock { $0.cell }
        guard let pixels = SixelCodec.load(path: path, maxWidth: cell.width * Self.columns, maxHeight: cell.height * Self.rows)
        else { return false }
        let bytes: String?
        switch graphics {
        case .kitty: bytes = KittyImage.draw(pixels)
        case .sixel: bytes = SixelCodec.sixel(pixels)
        case .none: bytes = nil
        }
        guard let bytes else { return false }
        state.withLock { state in
            if state.ready.updateValue(bytes, forKey: key) == nil { state.order.append(key) }
            while state.order.count > Self.most { state.ready[state.order.removeFirst()] = nil }
        }
        return true
    }

    /// The bytes that draw `placement`'s picture at the cursor.
    public func bytes(_ placement: ImagePlacement) -> String? {
        state.withLock { $0.ready[placement.key] }
    }
}
