#ifndef CPostgres_SHIM_H
#define CPostgres_SHIM_H
#include <libpq-fe.h>
#include <poll.h>

/* The PG_DIAG_* field codes are character-literal macros; named here as constants. */
enum {
    SB_PG_DIAG_SQLSTATE = PG_DIAG_SQLSTATE,
    SB_PG_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY,
    SB_PG_DIAG_MESSAGE_DETAIL = PG_DIAG_MESSAGE_DETAIL,
    SB_PG_DIAG_MESSAGE_HINT = PG_DIAG_MESSAGE_HINT,
    SB_PG_DIAG_CONSTRAINT_NAME = PG_DIAG_CONSTRAINT_NAME,
    SB_PG_DIAG_TABLE_NAME = PG_DIAG_TABLE_NAME,
};

/* libpq prints notices (e.g. "relation already exists, skipping") to stderr by default;
   the server's own log has them, so a connection discards them. */
static void sb_pq_discard_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline void sb_pq_discard_notices(PGconn *conn) {
    PQsetNoticeProcessor(conn, sb_pq_discard_notice, NULL);
}
#endif
