import YAMLCoding

extension TemplateCheck {
    /// The problems of a webhook rule's `dedupe: { key: … }`: the key reads the body as
    /// `payload`, as the rule's action templates do (`{{payload.groupKey}}`), to the leaf
    /// on `alertmanager` and `grafana` routes. Reported at the key's value.
    func problems(inDedupeKey key: DedupeKey, of rule: Rule, format: WebhookFormat, at mark: YAMLMark)
        -> [BotConfigError]
    {
        let rows = TemplateVariables.all.filter { $0.source == .webhook }
        let shape = TemplateShape.make(rows, names: TemplateShape.Names(payload: AlertTemplatePaths.payload(format)))
        let place = Place(rule: rule, provided: [.webhook], shape: shape, later: [])
        return key.template.references.compactMap { reference in
            guard reference.kind != .partial, !reference.path.isEmpty,
                  let message = place.problem(with: reference) else { return nil }
            return BotConfigError(code: .unknownVariable, location: SourceLocation(file: file, mark: mark),
                                  message: "dedupe.key: " + message)
        }
    }
}
