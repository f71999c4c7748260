#ifndef CCurl_SHIM_H
#define CCurl_SHIM_H
#include <curl/curl.h>

/* Typed wrappers for libcurl's variadic entry points, which Swift cannot call.
   One wrapper per argument type; the option constant decides what libcurl reads. */

/* curl_easy_setopt */
static inline CURLcode sb_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sb_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sb_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
/* libcurl copies string options (except CURLOPT_POSTFIELDS, which takes a pointer). */
static inline CURLcode sb_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sb_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
/* CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION */
static inline CURLcode sb_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
/* CURLOPT_OPENSOCKETFUNCTION */
static inline CURLcode sb_curl_easy_setopt_opensocket_callback(CURL *handle, CURLoption option, curl_opensocket_callback value) {
    return curl_easy_setopt(handle, option, value);
}
/* CURL_SOCKET_BAD is a macro Swift does not import. */
static inline curl_socket_t sb_curl_socket_bad(void) { return CURL_SOCKET_BAD; }
/* CURLOPT_DEBUGFUNCTION */
static inline CURLcode sb_curl_easy_setopt_debug_callback(CURL *handle, CURLoption option, curl_debug_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* curl_multi_setopt */
static inline CURLMcode sb_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/* curl_easy_getinfo */
static inline CURLcode sb_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode sb_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode sb_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode sb_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
