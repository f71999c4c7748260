/// A statement's parameters in binary form, packed in one buffer for libpq.
struct PostgresParameters {
    /// Each parameter's type OID (0 for NULL).
    let types: [UInt32]
    private var bytes: [UInt8] = []
    /// Where each value starts in `bytes`; nil for NULL.
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []

    /// Encodes `values`; throws `.invalidValue` for one PostgreSQL cannot take.
    init(_ values: [PostgresValue], context: @autoclosure () -> String) throws {
        types = values.map(\.typeOID)
        for (index, value) in values.enumerated() {
            let start = bytes.count
            do {
                let present = try value.encode(into: &bytes)
                let length = bytes.count - start
                guard length < 1 << 30 else {
                    throw BinaryReader.Failure(reason: "\(length) bytes, more than PostgreSQL's 1 GiB per value")
                }
                offsets.append(present ? start : nil)
                lengths.append(Int32(length))
            } catch let error as BinaryReader.Failure {
                throw PostgresError(
                    kind: .invalidValue, message: "parameter $\(index + 1): \(error.reason)", context: context())
            }
        }
        // A value of zero bytes still needs an address (a NULL pointer means SQL NULL),
        // and an empty array may have none.
        bytes.append(0)
    }

    /// Calls `body` with libpq's arrays: count, types, value pointers, lengths, formats
    /// (all binary), valid only inside it.
    func withPointers<R>(
        _ body: (
            Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) -> R
    ) -> R {
        let formats = [Int32](repeating: 1, count: types.count)
        return bytes.withUnsafeBytes { buffer in
            // `bytes` is never empty, so the buffer always has an address.
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.flatMap { buffer.baseAddress?.advanced(by: $0).assumingMemoryBound(to: CChar.self) }
            }
            return types.withUnsafeBufferPointer { types in
                values.withUnsafeBufferPointer { values in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            body(Int32(types.count), types.baseAddress, values.baseAddress, lengths.baseAddress,
                                 formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
