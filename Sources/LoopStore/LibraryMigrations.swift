import GRDB

/// The library's schema, as named, append-only migrations.
///
/// Rules: a shipped migration is never edited; migrations use SQL and table definitions only,
/// never the record types; and no migration touches the audio or pictures folders (only `loop gc`
/// removes files, and only files no row refers to).
enum LibraryMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1 loops, groups, phrases, audio, study") { db in
            try db.create(table: "audioAsset") { t in
                t.primaryKey("sha256", .text)
                t.column("path", .text).notNull().unique()
                t.column("format", .text).notNull()
                t.column("sampleRate", .integer).notNull()
                t.column("channelCount", .integer).notNull()
                t.column("frameCount", .integer).notNull()
                t.column("byteCount", .integer).notNull()
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "loop") { t in
                t.primaryKey("id", .text)
                t.column("title", .text).notNull()
                t.column("titleKey", .text).notNull().indexed()
                t.column("language", .text).indexed()
                t.column("translationLanguage", .text)
                t.column("sourceText", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull().indexed()
                t.column("revision", .integer).notNull().defaults(to: 1)
                t.column("ownerKey", .text)
                t.column("originRevision", .integer)
                t.column("editedLocally", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "loopTag") { t in
                t.column("loopId", .text).notNull().references("loop", onDelete: .cascade)
                t.column("tag", .text).notNull()
                t.column("tagKey", .text).notNull().indexed()
                t.primaryKey(["loopId", "tagKey"])
            }
            try db.create(table: "phraseGroup") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("loopId", .text).notNull().references("loop", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.uniqueKey(["loopId", "position"])
            }
            try db.create(table: "phrase") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("loopId", .text).notNull().references("loop", onDelete: .cascade)
                t.column("groupId", .integer).notNull().indexed().references("phraseGroup", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("text", .text).notNull()
                t.column("translation", .text)
                t.column("audioSha256", .text).indexed().references("audioAsset", onDelete: .restrict)
                t.column("startFrame", .integer)
                t.column("endFrame", .integer)
                t.uniqueKey(["loopId", "position"])
                t.check(
                    sql: "(audioSha256 IS NULL) = (startFrame IS NULL) AND (startFrame IS NULL) = (endFrame IS NULL)")
                t.check(sql: "startFrame IS NULL OR (startFrame >= 0 AND endFrame > startFrame)")
            }
            try db.create(table: "studyEvent") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("loopId", .text).notNull().indexed().references("loop", onDelete: .cascade)
                t.column("phraseId", .integer).indexed().references("phrase", onDelete: .setNull)
                t.column("startedAt", .datetime).notNull()
                t.column("seconds", .double).notNull()
                t.column("repetitions", .integer).notNull()
            }
        }

        migrator.registerMigration("v2 full-text search of phrases") { db in
            try db.create(virtualTable: "phraseSearch", using: FTS5()) { t in
                t.synchronize(withTable: "phrase")
                t.tokenizer = .unicode61(diacritics: .remove)
                // Prefix indexes keep prefix queries (`caf` for `café`) fast on common starts.
                t.prefixes = [2, 3, 4]
                t.column("text")
                t.column("translation")
            }
        }

        migrator.registerMigration("v3 covering index for loop summaries") { db in
            // Phrase and needing-audio counts per loop straight from the index, for `loop list`.
            try db.create(index: "phrase_on_loopId_audioSha256", on: "phrase", columns: ["loopId", "audioSha256"])
        }

        migrator.registerMigration("v4 search inside Chinese, Japanese and other unspaced text") { db in
            // The index alone is rebuilt, from the phrase rows, with the tokenizer that gives each
            // character of an unspaced script a token of its own.
            try db.dropFTS5SynchronizationTriggers(forTable: "phraseSearch")
            try db.drop(table: "phraseSearch")
            try db.create(virtualTable: "phraseSearch", using: FTS5()) { t in
                t.synchronize(withTable: "phrase")
                t.tokenizer = PhraseSearchTokenizer.tokenizerDescriptor()
                t.prefixes = [2, 3, 4]
                t.column("text")
                t.column("translation")
            }
        }

        migrator.registerMigration("v5 a clip kept when its phrase's text changes") { db in
            // The text a phrase's clip was recorded for, while the phrase's own text differs (a
            // typo fixed after recording); null when the clip matches the text. A column added,
            // nothing removed: every clip and take stays as it was.
            try db.alter(table: "phrase") { t in t.add(column: "recordedText", .text) }
        }

        migrator.registerMigration("v6 loop summaries kept on the loop row") { db in
            // `loop list` at 10,000 loops: counting 200,000 phrase rows on every listing took
            // half its time. The counts live on the loop row, kept by triggers in the same
            // transaction as every phrase or group written, and two covering indexes give a
            // listing in title or update order without reading the loop rows (whose source text
            // is large). Columns and indexes added: every row, clip and take stays as it was.
            try db.execute(
                sql: """
                    ALTER TABLE loop ADD COLUMN phraseCount INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE loop ADD COLUMN phrasesNeedingAudio INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE loop ADD COLUMN groupCount INTEGER NOT NULL DEFAULT 0;
                    UPDATE loop SET
                        phraseCount = (SELECT COUNT(*) FROM phrase WHERE phrase.loopId = loop.id),
                        phrasesNeedingAudio = (SELECT COUNT(*) FROM phrase WHERE phrase.loopId = loop.id AND phrase.audioSha256 IS NULL),
                        groupCount = (SELECT COUNT(*) FROM phraseGroup WHERE phraseGroup.loopId = loop.id);
                    CREATE TRIGGER phrase_counts_after_insert AFTER INSERT ON phrase BEGIN
                        UPDATE loop SET phraseCount = phraseCount + 1, phrasesNeedingAudio = phrasesNeedingAudio + (new.audioSha256 IS NULL)
                        WHERE id = new.loopId;
                    END;
                    CREATE TRIGGER phrase_counts_after_delete AFTER DELETE ON phrase BEGIN
                        UPDATE loop SET phraseCount = phraseCount - 1, phrasesNeedingAudio = phrasesNeedingAudio - (old.audioSha256 IS NULL)
                        WHERE id = old.loopId;
                    END;
                    CREATE TRIGGER phrase_counts_after_update AFTER UPDATE OF loopId, audioSha256 ON phrase BEGIN
                        UPDATE loop SET phraseCount = phraseCount - 1, phrasesNeedingAudio = phrasesNeedingAudio - (old.audioSha256 IS NULL)
                        WHERE id = old.loopId;
                        UPDATE loop SET phraseCount = phraseCount + 1, phrasesNeedingAudio = phrasesNeedingAudio + (new.audioSha256 IS NULL)
                        WHERE id = new.loopId;
                    END;
                    CREATE TRIGGER group_counts_after_insert AFTER INSERT ON phraseGroup BEGIN
                        UPDATE loop SET groupCount = groupCount + 1 WHERE id = new.loopId;
                    END;
                    CREATE TRIGGER group_counts_after_delete AFTER DELETE ON phraseGroup BEGIN
                        UPDATE loop SET groupCount = groupCount - 1 WHERE id = old.loopId;
                    END;
                    CREATE INDEX loop_summary_by_title ON loop(titleKey, id, title, language, translationLanguage, createdAt, updatedAt,
                        revision, phraseCount, phrasesNeedingAudio, groupCount);
                    CREATE INDEX loop_summary_by_update ON loop(updatedAt DESC, id, title, titleKey, language, translationLanguage, createdAt,
                        revision, phraseCount, phrasesNeedingAudio, groupCount);
                    """)
        }

        migrator.registerMigration("v7 loops installed from a Loop Library server") { db in
            // Where an installed loop came from, so `loop update` can ask that server for a newer
            // revision (and send the ETag it has). A table added: every row, clip and take stays.
            try db.execute(
                sql: """
                    CREATE TABLE loopOrigin (
                        loopId TEXT PRIMARY KEY NOT NULL REFERENCES loop(id) ON DELETE CASCADE,
                        server TEXT NOT NULL,
                        etag TEXT,
                        checkedAt DATETIME NOT NULL
                    );
                    """)
        }

        migrator.registerMigration("v8 pictures of loops, groups and phrases") { db in
            // Pictures are stored as the audio is: content-addressed files (`pictures/ab/cdef...`)
            // described by a row. A table and three nullable columns added: every row, clip and
            // take stays as it was, and no file is touched.
            try db.execute(
                sql: """
                    CREATE TABLE pictureAsset (
                        sha256 TEXT PRIMARY KEY NOT NULL,
                        path TEXT NOT NULL UNIQUE,
                        format TEXT NOT NULL,
                        width INTEGER NOT NULL,
                        height INTEGER NOT NULL,
                        byteCount INTEGER NOT NULL,
                        createdAt DATETIME NOT NULL
                    );
                    ALTER TABLE loop ADD COLUMN pictureSha256 TEXT REFERENCES pictureAsset(sha256) ON DELETE RESTRICT;
                    ALTER TABLE phraseGroup ADD COLUMN pictureSha256 TEXT REFERENCES pictureAsset(sha256) ON DELETE RESTRICT;
                    ALTER TABLE phrase ADD COLUMN pictureSha256 TEXT REFERENCES pictureAsset(sha256) ON DELETE RESTRICT;
                    """)
        }

        migrator.registerMigration("v9 how sure the cutter was of each clip") { db in
            // The confidence of the cuts at a clip's two ends (the lower), so that the phrase
            // editor can go from one doubtful clip to the next; null for a clip placed by hand
            // or stored before. A nullable column added: every clip and take stays as it was.
            try db.alter(table: "phrase") { t in t.add(column: "cutConfidence", .double) }
        }

        migrator.registerMigration("v10 study sessions found by loop and start") { db in
            // A merged progress file asks, for each of its sessions, whether the library has it
            // (its loop and its start): an index, or each question reads all of the loop's study
            // (75,000 sessions took minutes). An index added: every row stays as it was.
            try db.create(index: "studyEvent_loop_started", on: "studyEvent", columns: ["loopId", "startedAt"])
        }

        migrator.registerMigration("v11 review schedule of each group") { db in
            // Each group's reviews (the learner's ratings) and the state the scheduler gives it,
            // found by the group's text (its key), not its place: a loop updated, re-cut or
            // edited keeps the reviews of every group whose text did not change. Tables added:
            // every row, clip and take stays as it was.
            try db.execute(
                sql: """
                    CREATE TABLE groupReview (
                        id INTEGER PRIMARY KEY,
                        loopId TEXT NOT NULL REFERENCES loop(id) ON DELETE CASCADE,
                        groupKey TEXT NOT NULL,
                        rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
                        reviewedAt DATETIME NOT NULL,
                        UNIQUE (loopId, groupKey, reviewedAt));
                    CREATE TABLE groupReviewState (
                        loopId TEXT NOT NULL REFERENCES loop(id) ON DELETE CASCADE,
                        groupKey TEXT NOT NULL,
                        groupPosition INTEGER NOT NULL,
                        state INTEGER NOT NULL,
                        step INTEGER,
                        stability DOUBLE,
                        difficulty DOUBLE,
                        due DATETIME NOT NULL,
                        lastReview DATETIME NOT NULL,
                        introducedAt DATETIME NOT NULL,
                        reviewCount INTEGER NOT NULL,
                        PRIMARY KEY (loopId, groupKey)) WITHOUT ROWID;
                    CREATE INDEX groupReviewState_due ON groupReviewState(due);
                    CREATE INDEX groupReviewState_introduced ON groupReviewState(introducedAt);
                    CREATE TABLE librarySetting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    -- The learner's days (local), for the streak, the calendar and retention at a
                    -- glance: kept by triggers as study and reviews are written, never lessened
                    -- (a loop removed leaves the days studied as they were).
                    CREATE TABLE studyDay (
                        day TEXT PRIMARY KEY NOT NULL,
                        seconds DOUBLE NOT NULL DEFAULT 0,
                        reviews INTEGER NOT NULL DEFAULT 0,
                        again INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                    INSERT INTO studyDay (day, seconds)
                        SELECT date(startedAt, 'localtime'), SUM(seconds) FROM studyEvent GROUP BY 1;
                    CREATE TRIGGER studyDay_after_study AFTER INSERT ON studyEvent BEGIN
                        INSERT INTO studyDay (day, seconds) VALUES (date(new.startedAt, 'localtime'), new.seconds)
                        ON CONFLICT(day) DO UPDATE SET seconds = seconds + excluded.seconds;
                    END;
                    -- Each loop's study totals, kept as study is written: `loop stats` at 10,000
                    -- loops and a year of study reads these rows, not every session's.
                    CREATE TABLE loopStudy (
                        loopId TEXT PRIMARY KEY NOT NULL REFERENCES loop(id) ON DELETE CASCADE,
                        sessions INTEGER NOT NULL DEFAULT 0,
                        seconds DOUBLE NOT NULL DEFAULT 0,
                        repetitions INTEGER NOT NULL DEFAULT 0,
                        lastStudied DATETIME NOT NULL) WITHOUT ROWID;
                    CREATE INDEX loopStudy_last ON loopStudy(lastStudied);
                    INSERT INTO loopStudy (loopId, sessions, seconds, repetitions, lastStudied)
                        SELECT loopId, COUNT(DISTINCT startedAt), SUM(seconds), SUM(repetitions), MAX(startedAt)
                        FROM studyEvent GROUP BY loopId;
                    CREATE TRIGGER loopStudy_after_study AFTER INSERT ON studyEvent BEGIN
                        INSERT INTO loopStudy (loopId, sessions, seconds, repetitions, lastStudied)
                        VALUES (new.loopId, 1, new.seconds, new.repetitions, new.startedAt)
                        ON CONFLICT(loopId) DO UPDATE SET
                            sessions = sessions + NOT EXISTS (SELECT 1 FROM studyEvent
                                WHERE loopId = new.loopId AND startedAt = new.startedAt AND id != new.id),
                            seconds = seconds + excluded.seconds, repetitions = repetitions + excluded.repetitions,
                            lastStudied = max(lastStudied, excluded.lastStudied);
                    END;
                    CREATE TRIGGER studyDay_after_review AFTER INSERT ON groupReview BEGIN
                        INSERT INTO studyDay (day, reviews, again) VALUES (date(new.reviewedAt, 'localtime'), 1, new.rating = 1)
                        ON CONFLICT(day) DO UPDATE SET reviews = reviews + 1, again = again + excluded.again;
                    END;
                    """)
        }

        migrator.registerMigration("v12 shadowing attempts") { db in
            // The learner's last attempts at each phrase (shadowing), found by the phrase's text
            // (its key): a loop re-cut or edited keeps the attempts of every phrase whose text did
            // not change. Their recordings are audio like any other (content-addressed, checked by
            // `loop doctor`), kept by these rows until `loop gc`. A table added: every row, clip
            // and take stays as it was.
            try db.execute(
                sql: """
                    CREATE TABLE shadowingAttempt (
                        id INTEGER PRIMARY KEY,
                        loopId TEXT NOT NULL REFERENCES loop(id) ON DELETE CASCADE,
                        phraseKey TEXT NOT NULL,
                        phraseText TEXT NOT NULL,
                        audioSha256 TEXT NOT NULL REFERENCES audioAsset(sha256) ON DELETE RESTRICT,
                        recordedAt DATETIME NOT NULL,
                        coverage DOUBLE NOT NULL,
                        match DOUBLE NOT NULL,
                        lengthRatio DOUBLE NOT NULL,
                        intonation DOUBLE,
                        missedWords TEXT NOT NULL,
                        timingWord TEXT,
                        timingRatio DOUBLE);
                    CREATE INDEX shadowingAttempt_phrase ON shadowingAttempt(loopId, phraseKey, recordedAt);
                    CREATE INDEX shadowingAttempt_audio ON shadowingAttempt(audioSha256);
                    """)
        }

        return migrator
    }
}
