#ifndef LOOP_HTTP_TRANSFER_H
#define LOOP_HTTP_TRANSFER_H

#include <stddef.h>

/* One HTTP request made with libcurl, which is opened with dlopen on the first request rather
 * than linked: `loop` starts without loading libcurl and the thirty-odd libraries it needs
 * (TLS, Kerberos, LDAP, ...), since most commands never reach a server. */
typedef struct {
    const char *method;                /* "GET", "POST", "DELETE" */
    const char *url;
    const char *const *headers;        /* "Name: value" lines */
    int header_count;
    const char *upload_path;           /* the body, read from this file; or NULL for none */
    const char *download_path;         /* the answer's body, written to this file; or NULL to keep it in memory */
    long timeout_seconds;              /* given up on when under 512 bytes a second for this long */
    long deadline_seconds;             /* given up on after this long in all, or 0 for no limit */
    long long max_body_bytes;          /* the body (after decompression) may hold at most this many bytes, or 0 for no limit */
} loop_http_request;

typedef struct {
    long status;                       /* the HTTP status */
    char *body;                        /* the answer's body when no download_path was given */
    size_t body_length;
    char *etag;                        /* the ETag header's value, or NULL */
    char *redirect_url;                /* where a redirect (3xx) points, or NULL: never followed here */
    int too_large;                     /* non-zero when the body passed max_body_bytes (the transfer failed) */
    int timed_out;                     /* non-zero when the transfer stalled or passed its deadline */
    char error[512];                   /* why the transfer failed, when it did */
    int local_failure;                 /* non-zero when it failed here (a file, memory, libcurl itself), not on the network */
} loop_http_response;

/* Makes the request, blocking until it is answered. Returns 0 when an answer came (whatever its
 * status), else non-zero with `response->error` saying why. Free the response with
 * loop_http_response_free either way. */
int loop_http_perform(const loop_http_request *request, loop_http_response *response);

void loop_http_response_free(loop_http_response *response);

#endif
