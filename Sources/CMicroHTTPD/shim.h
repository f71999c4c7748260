#ifndef CMicroHTTPD_SHIM_H
#define CMicroHTTPD_SHIM_H

#include <microhttpd.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/*
 * Typed wrappers for what Swift cannot call: MHD's variadic functions, and the
 * epoll calls (packed `struct epoll_event`) used to notice clients that hang up while
 * their request is parked.
 */

/* Everything `sb_mhd_start` needs; integer settings of 0 leave MHD's default. */
struct sb_mhd_settings {
    unsigned int flags;
    int listen_fd;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int connection_timeout;
    size_t connection_memory;
    /* Query arguments a request may carry; 0 for no limit (see sb_mhd_query_guard). */
    size_t max_query_arguments;
    MHD_AccessHandlerCallback access_handler;
    MHD_RequestCompletedCallback request_completed;
    MHD_NotifyConnectionCallback notify_connection;
    MHD_LogCallback logger;
    /* Passed to every callback above. */
    void *cls;
};

/* The request context sb_mhd_query_guard gives a request whose query it emptied. Never a
 * valid object's address, so the access handler tells it from its own contexts. */
#define SB_MHD_TOO_MANY_ARGUMENTS ((void *) (uintptr_t) 1)

/* MHD's URI log callback, called with the request line's URI before MHD parses the query
 * (its `cls` is the argument limit). MHD keeps a record per query argument in the
 * connection's memory pool, and when the pool runs out while parsing them (0.9.75) it
 * leaves the client without an answer until the connection times out. So a query with
 * more arguments than the limit is emptied here, in MHD's own read buffer, which MHD is
 * about to cut at the '?' itself: nothing is parsed, and the request is marked for the
 * access handler to answer 414 at once. */
static inline void *sb_mhd_query_guard(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void) connection;
    size_t limit = (size_t) (uintptr_t) cls;
    char *query = uri != NULL ? strchr(uri, '?') : NULL;
    if (query == NULL || limit == 0) return NULL;
    size_t count = 1;
    for (const char *p = query + 1; *p != '\0'; p++) {
        if (*p == '&') count++;
    }
    if (count <= limit) return NULL;
    query[1] = '\0';
    return SB_MHD_TOO_MANY_ARGUMENTS;
}

/* Whether a request context is the mark of sb_mhd_query_guard. */
static inline int sb_mhd_is_too_many_arguments(const void *context) {
    return context == SB_MHD_TOO_MANY_ARGUMENTS;
}

/* Starts a daemon on an already listening socket (MHD_start_daemon is variadic). */
static inline struct MHD_Daemon *sb_mhd_start(const struct sb_mhd_settings *s) {
    struct MHD_OptionItem ops[12];
    int n = 0;
    /* The logger goes first so that start-up messages reach it too. */
    ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t) s->logger, s->cls };
    ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, s->listen_fd, NULL };
    ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) s->request_completed, s->cls };
    ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t) s->notify_connection, s->cls };
    if (s->thread_pool_size > 1)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, (intptr_t) s->thread_pool_size, NULL };
    if (s->connection_limit > 0)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, (intptr_t) s->connection_limit, NULL };
    if (s->connection_timeout > 0)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t) s->connection_timeout, NULL };
    if (s->connection_memory > 0)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) s->connection_memory, NULL };
    if (s->max_query_arguments > 0)
        ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t) sb_mhd_query_guard,
                                            (void *) (uintptr_t) s->max_query_arguments };
    ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(s->flags, 0, NULL, NULL, s->access_handler, s->cls,
                            MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
}

/* The port the daemon listens on (the real one when 0 was asked for); 0 if unknown. */
static inline uint16_t sb_mhd_bind_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info != NULL ? info->port : 0;
}

/* The connection's socket, or -1. */
static inline int sb_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info != NULL ? info->connect_fd : -1;
}

/* The peer's address (owned by MHD, valid while the connection is), or NULL. */
static inline const struct sockaddr *sb_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info != NULL ? info->client_addr : NULL;
}

/* The pointer set for this TCP connection in the notify-connection callback, or NULL. */
static inline void *sb_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info != NULL ? info->socket_context : NULL;
}

/* A new epoll set, or -1 with errno. */
static inline int sb_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

/* Reports `token` once when the peer of `fd` hangs up (EPOLLRDHUP; HUP and ERR are implied). */
static inline int sb_epoll_watch_hangup(int epfd, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLRDHUP | EPOLLONESHOT;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

/* Re-arms the hang-up watch of an `fd` already in the set, with a new token. */
static inline int sb_epoll_rewatch_hangup(int epfd, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLRDHUP | EPOLLONESHOT;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event);
}

/* Reports `token` whenever `fd` is readable (for a wake-up eventfd). */
static inline int sb_epoll_watch_readable(int epfd, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

static inline int sb_epoll_forget(int epfd, int fd) {
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* Waits for events and stores their tokens; returns how many, or -1 with errno. */
static inline int sb_epoll_wait_tokens(int epfd, uint64_t *tokens, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) tokens[i] = events[i].data.u64;
    return n;
}

/* The same with a timeout in nanoseconds (epoll_pwait2; negative: none), for waits
   shorter than a millisecond that epoll_wait would round to a busy poll. */
static inline int sb_epoll_wait_tokens_ns(int epfd, uint64_t *tokens, int capacity, long long timeout_ns) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    struct timespec timeout = { (time_t)(timeout_ns / 1000000000LL), (long)(timeout_ns % 1000000000LL) };
    int n = epoll_pwait2(epfd, events, capacity, timeout_ns < 0 ? NULL : &timeout, NULL);
    for (int i = 0; i < n; i++) tokens[i] = events[i].data.u64;
    return n;
}

static inline int sb_eventfd_create(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

#endif
