import IMProtocol
import IMStore
import Testing

/// The ladder every store applies: nobody acts at or above their own standing, and each
/// action needs its role.
@Suite struct GroupRulesTests {
    typealias Standing = GroupRules.Standing

    static let roles: [MemberRole?] = [nil, .member, .admin, .owner]

    @Test(arguments: ModerationAction.allCases)
    func anActionNeedsItsRoleAndARankAboveTheTarget(_ action: ModerationAction) {
        for actorRole in Self.roles {
            for isServerAdministrator in [false, true] {
                let actor = Standing(role: actorRole, isServerAdministrator: isServerAdministrator)
                for target in Self.roles {
                    let allowed = actor >= Standing(role: action.requiredRole) && Standing(role: target) < actor
                    var refusal: String?
                    do {
                        try GroupRules.authorize(action, actor: actor, target: target)
                    } catch StoreError.refused(let reason, _) {
                        refusal = reason
                    } catch {
                        Issue.record("unexpected \(error)")
                    }
                    #expect((refusal == nil) == allowed, "\(actor) \(action) \(String(describing: target))")
                    if actor < Standing(role: action.requiredRole) {
                        #expect(refusal == (action.requiredRole == .owner ? "not_group_owner" : "not_group_admin"))
                    } else if !allowed {
                        #expect(refusal == "outranked")
                    }
                }
            }
        }
    }

    @Test func aServerAdministratorStandsAboveEveryOwner() {
        #expect(Standing(role: nil, isServerAdministrator: true) == .serverAdministrator)
        #expect(Standing(role: .member, isServerAdministrator: true) > Standing(role: .owner))
        #expect(throws: Never.self) { try GroupRules.authorize(.kick, actor: .serverAdministrator, target: .owner) }
        #expect(throws: StoreError.self) { try GroupRules.authorize(.kick, actor: .owner, target: .owner) }
    }
}
