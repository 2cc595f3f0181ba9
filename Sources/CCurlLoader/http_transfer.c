/* The Loop Library client's HTTP requests through libcurl, opened with dlopen on the first
 * request. The prototypes come from curl's own header, so a mismatch is a compile error. */
#include "http_transfer.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct {
    __typeof__(&curl_global_init) global_init;
    __typeof__(&curl_easy_init) easy_init;
    __typeof__(&curl_easy_setopt) easy_setopt;
    __typeof__(&curl_easy_perform) easy_perform;
    __typeof__(&curl_easy_getinfo) easy_getinfo;
    __typeof__(&curl_easy_cleanup) easy_cleanup;
    __typeof__(&curl_easy_strerror) easy_strerror;
    __typeof__(&curl_slist_append) slist_append;
    __typeof__(&curl_slist_free_all) slist_free_all;
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

/* OpenSSL's own value of OPENSSL_INIT_NO_ATEXIT (openssl/crypto.h, OpenSSL 1.1.1b and later). */
#define LOOP_OPENSSL_INIT_NO_ATEXIT 0x00080000ULL

/* OpenSSL 3 frees its global state from an atexit handler, while a thread that made a request
 * may still be ending (its thread-local destructor reads that state): `loop` crashed in
 * libcrypto as it exited, now and then. curl 8.5 asks OpenSSL not to (OPENSSL_INIT_NO_ATEXIT);
 * Debian 12's curl 7.88 does not, so it is asked here, before curl starts OpenSSL. The
 * process's memory is given back when it exits anyway. Without OpenSSL (curl built on another
 * TLS library) there is nothing to do. */
static void keep_openssl_until_exit(void) {
    void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!crypto) return;
    int (*init_crypto)(uint64_t, const void *) = (int (*)(uint64_t, const void *))dlsym(crypto, "OPENSSL_init_crypto");
    if (init_crypto) init_crypto(LOOP_OPENSSL_INIT_NO_ATEXIT, NULL);
}

static void load(void) {
    void *handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_error, sizeof load_error, "libcurl is not installed (Debian: the libcurl4 package)");
        return;
    }
    /* libcurl's own libcrypto is loaded by now (RTLD_NOLOAD finds it) but not started. */
    keep_openssl_until_exit();
#define RESOLVE(field, name) \
    if (!(curl.field = (__typeof__(curl.field))dlsym(handle, #name))) { \
        snprintf(load_error, sizeof load_error, "libcurl lacks %s", #name); return; }
    RESOLVE(global_init, curl_global_init)
    RESOLVE(easy_init, curl_easy_init)
    RESOLVE(easy_setopt, curl_easy_setopt)
    RESOLVE(easy_perform, curl_easy_perform)
    RESOLVE(easy_getinfo, curl_easy_getinfo)
    RESOLVE(easy_cleanup, curl_easy_cleanup)
    RESOLVE(easy_strerror, curl_easy_strerror)
    RESOLVE(slist_append, curl_slist_append)
    RESOLVE(slist_free_all, curl_slist_free_all)
#undef RESOLVE
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) snprintf(load_error, sizeof load_error, "libcurl did not start");
}

typedef struct {
    FILE *file;
    char *data;
    size_t length, capacity;
    long long received, limit;
    int out_of_memory, write_failed, too_large;
} sink;

/* Receives the body as it arrives, decompressed (libcurl decodes gzip and deflate before this
 * is called), so the limit holds for what the server's bytes expand to. */
static size_t write_body(char *bytes, size_t size, size_t count, void *context) {
    sink *into = context;
    size_t length = size * count;
    into->received += (long long)length;
    if (into->limit > 0 && into->received > into->limit) { into->too_large = 1; return 0; }
    if (into->file) {
        size_t written = fwrite(bytes, 1, length, into->file);
        if (written < length) into->write_failed = 1;
        return written;
    }
    if (into->length + length + 1 > into->capacity) {
        size_t capacity = into->capacity ? into->capacity : 16384;
        while (capacity < into->length + length + 1) capacity *= 2;
        char *grown = realloc(into->data, capacity);
        if (!grown) { into->out_of_memory = 1; return 0; }
        into->data = grown;
        into->capacity = capacity;
    }
    memcpy(into->data + into->length, bytes, length);
    into->length += length;
    into->data[into->length] = 0;
    return length;
}

static size_t read_header(char *bytes, size_t size, size_t count, void *context) {
    loop_http_response *response = context;
    size_t length = size * count;
    static const char name[] = "etag:";
    /* Each response (a redirect's, then the final one's) starts with its status line. */
    if (length >= 5 && strncmp(bytes, "HTTP/", 5) == 0) {
        free(response->etag);
        response->etag = NULL;
    }
    if (length > sizeof name - 1 && strncasecmp(bytes, name, sizeof name - 1) == 0) {
        const char *value = bytes + sizeof name - 1;
        const char *end = bytes + length;
        while (value < end && (*value == ' ' || *value == '\t')) value++;
        while (end > value && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
        free(response->etag);
        response->etag = strndup(value, (size_t)(end - value));
    }
    return length;
}

int loop_http_perform(const loop_http_request *request, loop_http_response *response) {
    memset(response, 0, sizeof *response);
    pthread_once(&once, load);
    if (load_error[0]) {
        snprintf(response->error, sizeof response->error, "%s", load_error);
        response->local_failure = 1;
        return -1;
    }
    CURL *easy = curl.easy_init();
    if (!easy) {
        snprintf(response->error, sizeof response->error, "libcurl could not start a transfer");
        response->local_failure = 1;
        return -1;
    }
    sink body = {0};
    FILE *upload = NULL;
    struct curl_slist *headers = NULL;
    int result = -1;
    if (request->download_path && !(body.file = fopen(request->download_path, "wb"))) {
        snprintf(response->error, sizeof response->error, "cannot write %s", request->download_path);
        response->local_failure = 1;
        goto done;
    }
    curl.easy_setopt(easy, CURLOPT_URL, request->url);
    curl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, 30L);
    /* Given up on when it crawls (a server sending a byte a second keeps nobody waiting) and
     * after its deadline in all. */
    curl.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 512L);
    curl.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, request->timeout_seconds);
    if (request->deadline_seconds > 0) curl.easy_setopt(easy, CURLOPT_TIMEOUT, request->deadline_seconds);
    body.limit = request->max_body_bytes;
    /* A declared length over the limit is refused before a byte of the body is read. */
    if (request->max_body_bytes > 0) curl.easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_body_bytes);
    curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    curl.easy_setopt(easy, CURLOPT_WRITEDATA, &body);
    curl.easy_setopt(easy, CURLOPT_HEADERFUNCTION, read_header);
    curl.easy_setopt(easy, CURLOPT_HEADERDATA, response);
    curl.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl.easy_setopt(easy, CURLOPT_USERAGENT, "LoopLearn-loop");
    /* http and https only; redirects are not followed here but handed to the caller, which
     * decides whether their target may be requested. */
    curl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    headers = curl.slist_append(headers, "Expect:"); /* no 100-continue round trip before a body */
    for (int i = 0; i < request->header_count; i++) headers = curl.slist_append(headers, request->headers[i]);
    curl.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    if (request->upload_path) {
        if (!(upload = fopen(request->upload_path, "rb"))) {
            snprintf(response->error, sizeof response->error, "cannot read %s", request->upload_path);
            response->local_failure = 1;
            goto done;
        }
        fseeko(upload, 0, SEEK_END);
        curl_off_t size = (curl_off_t)ftello(upload);
        rewind(upload);
        /* Streamed from the file by libcurl's own reader (fread), as a POST of known size. */
        curl.easy_setopt(easy, CURLOPT_POST, 1L);
        curl.easy_setopt(easy, CURLOPT_READDATA, upload);
        curl.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, size);
    } else if (strcmp(request->method, "POST") == 0) {
        curl.easy_setopt(easy, CURLOPT_POSTFIELDS, "");
    }
    if (strcmp(request->method, "GET") != 0 && strcmp(request->method, "POST") != 0) curl.easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request->method);
    CURLcode code = curl.easy_perform(easy);
    if (body.too_large || code == CURLE_FILESIZE_EXCEEDED) {
        snprintf(response->error, sizeof response->error, "the answer is larger than %lld bytes", request->max_body_bytes);
        response->too_large = 1;
        goto done;
    }
    if (code == CURLE_OPERATION_TIMEDOUT) response->timed_out = 1;
    if (body.out_of_memory) {
        snprintf(response->error, sizeof response->error, "out of memory");
        response->local_failure = 1;
        goto done;
    }
    if (body.write_failed || code == CURLE_WRITE_ERROR) {
        snprintf(response->error, sizeof response->error, "cannot write %s", request->download_path ? request->download_path : "the answer");
        response->local_failure = 1;
        goto done;
    }
    if (code == CURLE_READ_ERROR && request->upload_path) {
        snprintf(response->error, sizeof response->error, "cannot read %s", request->upload_path);
        response->local_failure = 1;
        goto done;
    }
    if (code != CURLE_OK) {
        snprintf(response->error, sizeof response->error, "%s", curl.easy_strerror(code));
        goto done;
    }
    curl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response->status);
    char *redirect = NULL;
    if (response->status >= 300 && response->status < 400 && curl.easy_getinfo(easy, CURLINFO_REDIRECT_URL, &redirect) == CURLE_OK && redirect) {
        response->redirect_url = strdup(redirect);
    }
    if (body.file && fflush(body.file) != 0) {
        snprintf(response->error, sizeof response->error, "cannot write %s", request->download_path);
        response->local_failure = 1;
        goto done;
    }
    result = 0;
done:
    if (body.file) fclose(body.file);
    if (upload) fclose(upload);
    if (headers) curl.slist_free_all(headers);
    curl.easy_cleanup(easy);
    response->body = body.data;
    response->body_length = body.length;
    return result;
}

void loop_http_response_free(loop_http_response *response) {
    free(response->body);
    free(response->etag);
    free(response->redirect_url);
    response->body = NULL;
    response->etag = NULL;
    response->redirect_url = NULL;
}
