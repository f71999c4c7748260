/// Every endpoint of the API, in one table.
enum Routes {
    static let all: [Route] =
        SystemRoutes.routes + AccountRoutes.routes + UserRoutes.routes + GroupRoutes.routes + AdmissionRoutes.routes + ModerationRoutes.routes
        + ConversationRoutes.routes + NoticeRoutes.routes + MessageChangeRoutes.routes + EventRoutes.routes + AdminRoutes.routes
        + BotJournalRoutes.routes + DirectoryRoutes.routes + WebRoutes.routes
}
