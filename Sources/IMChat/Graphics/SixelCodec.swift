import CSixel
import Foundation

/// A picture as pixels: RGB, 3 bytes per pixel, rows from the top.
struct Pixels: Sendable, Equatable {
    var width: Int
    var height: Int
    var rgb: [UInt8]
}

/// libsixel, wrapped once: an image file (PNG, JPEG, GIF or BMP) to pixels at a size,
/// and pixels to sixel graphics. Every libsixel object lives inside one call and is
/// released before it returns, so nothing above this sees a C pointer.
enum SixelCodec {
    /// The first frame of the image at `path`, scaled to fit `maxWidth`×`maxHeight`
    /// pixels keeping its shape; nil when libsixel cannot read it.
    static func load(path: String, maxWidth: Int, maxHeight: Int) -> Pixels? {
        final class Request {
            let maxWidth: Int
            let maxHeight: Int
            var pixels: Pixels?
            init(maxWidth: Int, maxHeight: Int) {
                self.maxWidth = maxWidth
                self.maxHeight = maxHeight
            }
        }
        let request = Request(maxWidth: max(1, maxWidth), maxHeight: max(1, maxHeight))
        let context = Unmanaged.passRetained(request)
        defer { context.release() }
        // The loader wants an allocator of its own (a null one is a bad argument to it).
        var allocator: OpaquePointer?
        guard sb_sixel_failed(sixel_allocator_new(&allocator, nil, nil, nil, nil)) == 0, let allocator else { return nil }
        defer { sixel_allocator_unref(allocator) }
        let status = sixel_helper_load_image_file(
            path, 1, 0, 256, nil, Int32(SIXEL_LOOP_AUTO),
            { frame, context in
                guard let frame, let context else { return Int32(SIXEL_FALSE) }
                let request = Unmanaged<Request>.fromOpaque(context).takeUnretainedValue()
                let (width, height) = (Int(sixel_frame_get_width(frame)), Int(sixel_frame_get_height(frame)))
                guard width > 0, height > 0 else { return Int32(SIXEL_FALSE) }
                let scale = min(1, min(Double(request.maxWidth) / Double(width), Double(request.maxHeight) / Double(height)))
                let (fitWidth, fitHeight) = (max(1, Int(Double(width) * scale)), max(1, Int(Double(height) * scale)))
                guard let rgb = SixelCodec.rgb(of: frame) else { return Int32(SIXEL_FALSE) }
                request.pixels = SixelCodec.resize(Pixels(width: width, height: height, rgb: rgb), to: fitWidth, fitHeight)
                return Int32(SIXEL_OK)
            },
            0, nil, context.toOpaque(), allocator)
        guard sb_sixel_failed(status) == 0 else { return nil }
        return request.pixels
    }

    /// A frame's pixels as RGB, from the formats the loader hands out.
    private static func rgb(of frame: OpaquePointer) -> [UInt8]? {
        let count = Int(sixel_frame_get_width(frame)) * Int(sixel_frame_get_height(frame))
        guard let source = sixel_frame_get_pixels(frame) else { return nil }
        switch sixel_frame_get_pixelformat(frame) {
        case Int32(SIXEL_PIXELFORMAT_RGB888):
            return Array(UnsafeBufferPointer(start: source, count: count * 3))
        case Int32(SIXEL_PIXELFORMAT_RGBA8888):
            var rgb = [UInt8](repeating: 0, count: count * 3)
            for index in 0..<count {
                // Blended over black, the background terminals mostly have.
                let alpha = Int(source[index * 4 + 3])
                for channel in 0..<3 { rgb[index * 3 + channel] = UInt8(Int(source[index * 4 + channel]) * alpha / 255) }
            }
            return rgb
        case Int32(SIXEL_PIXELFORMAT_PAL8):
            guard let palette = sixel_frame_get_palette(frame) else { return nil }
            let colors = Int(sixel_frame_get_ncolors(frame))
            var rgb = [UInt8](repeating: 0, count: count * 3)
            for index in 0..<count {
                let entry = min(Int(source[index]), max(0, colors - 1))
                for channel in 0..<3 { rgb[index * 3 + channel] = palette[entry * 3 + channel] }
            }
            return rgb
        default:
            return nil
        }
    }

    /// `pixels` scaled to `width`×`height` with libsixel's bilinear filter.
    static func resize(_ pixels: Pixels, to width: Int, _ height: Int) -> Pixels {
        guard width != pixels.width || height != pixels.height else { return pixels }
        var source = pixels.rgb
        var target = [UInt8](repeating: 0, count: width * height * 3)
        let status = source.withUnsafeMutableBufferPointer { from in
            target.withUnsafeMutableBufferPointer { to in
                sixel_helper_scale_image(
                    to.baseAddress, from.baseAddress, Int32(pixels.width), Int32(pixels.height),
                    Int32(SIXEL_PIXELFORMAT_RGB888), Int32(width), Int32(height), Int32(SIXEL_RES_BILINEAR), nil)
            }
        }
        guard sb_sixel_failed(status) == 0 else { return pixels }
        return Pixels(width: width, height: height, rgb: target)
    }

    /// `pixels` as sixel graphics (DCS … ST), drawn from the cursor; nil when encoding fails.
    static func sixel(_ pixels: Pixels) -> String? {
        final class Sink {
            var bytes: [UInt8] = []
        }
        let sink = Sink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var output: OpaquePointer?
        guard sb_sixel_failed(sixel_output_new(&output, { data, size, context in
            guard let data, let context, size > 0 else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            data.withMemoryRebound(to: UInt8.self, capacity: Int(size)) { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: Int(size))) }
            return size
        }, context.toOpaque(), nil)) == 0, let output else { return nil }
        defer { sixel_output_unref(output) }
        var dither: OpaquePointer?
        guard sb_sixel_failed(sixel_dither_new(&dither, 256, nil)) == 0, let dither else { return nil }
        defer { sixel_dither_unref(dither) }
        var rgb = pixels.rgb
        let status = rgb.withUnsafeMutableBufferPointer { buffer -> SIXELSTATUS in
            let initialized = sixel_dither_initialize(
                dither, buffer.baseAddress, Int32(pixels.width), Int32(pixels.height), Int32(SIXEL_PIXELFORMAT_RGB888),
                Int32(SIXEL_LARGE_AUTO), Int32(SIXEL_REP_AUTO), Int32(SIXEL_QUALITY_AUTO))
            guard sb_sixel_failed(initialized) == 0 else { return initialized }
            return sixel_encode(buffer.baseAddress, Int32(pixels.width), Int32(pixels.height), 3, dither, output)
        }
        guard sb_sixel_failed(status) == 0 else { return nil }
        return String(decoding: sink.bytes, as: UTF8.self)
    }
}
