#include "phrase_rank.h"

#include <math.h>
#include <string.h>

/* What a query's rows share, worked out on its first row and kept as the query's aux data. */
typedef struct {
    int phraseCount;
    double averageTokens;   /* tokens in a row, over the whole table */
    double *weights;        /* each phrase's inverse document frequency (1 for a lone phrase) */
    double *frequencies;    /* each phrase's instances in the current row */
} QueryStatistics;

static int count_row(const Fts5ExtensionApi *api, Fts5Context *context, void *count) {
    (void)api;
    (void)context;
    *(sqlite3_int64 *)count += 1;
    return SQLITE_OK;
}

static int query_statistics(const Fts5ExtensionApi *api, Fts5Context *context, QueryStatistics **result) {
    QueryStatistics *statistics = api->xGetAuxdata(context, 0);
    if (statistics) {
        *result = statistics;
        return SQLITE_OK;
    }
    int phraseCount = api->xPhraseCount(context);
    statistics = sqlite3_malloc64(sizeof(QueryStatistics) + sizeof(double) * 2 * (sqlite3_uint64)phraseCount);
    if (!statistics) return SQLITE_NOMEM;
    memset(statistics, 0, sizeof(QueryStatistics) + sizeof(double) * 2 * (size_t)phraseCount);
    statistics->phraseCount = phraseCount;
    statistics->weights = (double *)&statistics[1];
    statistics->frequencies = statistics->weights + phraseCount;

    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(context, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(context, -1, &tokens);
    if (rc == SQLITE_OK) statistics->averageTokens = rows > 0 ? (double)tokens / (double)rows : 1.0;
    /* A lone phrase weighs the same in every row: no need to count the rows that hold it. */
    if (phraseCount == 1) statistics->weights[0] = 1.0;
    for (int phrase = 0; rc == SQLITE_OK && phraseCount > 1 && phrase < phraseCount; phrase++) {
        sqlite3_int64 hits = 0;
        rc = api->xQueryPhrase(context, phrase, &hits, count_row);
        /* As bm25: a phrase in more than half the rows would weigh less than nothing. */
        double weight = log(((double)rows - (double)hits + 0.5) / ((double)hits + 0.5));
        statistics->weights[phrase] = weight > 0.0 ? weight : 1e-6;
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(context, statistics, sqlite3_free);
    else sqlite3_free(statistics);
    if (rc != SQLITE_OK) return rc;
    *result = statistics;
    return SQLITE_OK;
}

static void loop_rank(const Fts5ExtensionApi *api, Fts5Context *context, sqlite3_context *output, int argumentCount, sqlite3_value **arguments) {
    (void)argumentCount;
    (void)arguments;
    const double k1 = 1.2, b = 0.75;
    QueryStatistics *statistics = NULL;
    int rc = query_statistics(api, context, &statistics);
    int instances = 0, rowTokens = 0;
    if (rc == SQLITE_OK) {
        memset(statistics->frequencies, 0, sizeof(double) * (size_t)statistics->phraseCount);
        rc = api->xInstCount(context, &instances);
    }
    for (int instance = 0; rc == SQLITE_OK && instance < instances; instance++) {
        int phrase = 0, column = 0, offset = 0;
        rc = api->xInst(context, instance, &phrase, &column, &offset);
        if (rc == SQLITE_OK) statistics->frequencies[phrase] += 1.0;
    }
    if (rc == SQLITE_OK) rc = api->xColumnSize(context, -1, &rowTokens);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(output, rc);
        return;
    }
    double score = 0.0;
    for (int phrase = 0; phrase < statistics->phraseCount; phrase++) {
        double frequency = statistics->frequencies[phrase];
        score += statistics->weights[phrase] * (frequency * (k1 + 1.0))
            / (frequency + k1 * (1.0 - b + b * (double)rowTokens / statistics->averageTokens));
    }
    /* Best first under ORDER BY, as bm25. */
    sqlite3_result_double(output, -score);
}

int loop_register_phrase_rank(sqlite3 *connection) {
    fts5_api *fts5 = NULL;
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(connection, "SELECT fts5(?1)", -1, &statement, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(statement, 1, (void *)&fts5, "fts5_api_ptr", NULL);
    sqlite3_step(statement);
    rc = sqlite3_finalize(statement);
    if (rc != SQLITE_OK) return rc;
    if (!fts5) return SQLITE_ERROR;
    return fts5->xCreateFunction(fts5, "loop_rank", NULL, loop_rank, NULL);
}
