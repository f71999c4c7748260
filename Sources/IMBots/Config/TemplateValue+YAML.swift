import Templates
import YAMLCoding

extension TemplateValue {
    /// The template view of a YAML value (object order is dropped).
    init(yaml: YAMLValue) {
        switch yaml {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let items): self = .array(items.map(TemplateValue.init(yaml:)))
        case .object(let members):
            self = .object(Dictionary(members.map { ($0.key, TemplateValue(yaml: $0.value)) },
                                      uniquingKeysWith: { _, last in last }))
        }
    }
}
