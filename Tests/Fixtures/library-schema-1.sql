-- A loop library as the first schema (migration "v1 loops, groups, phrases, audio, study") wrote it:
-- one loop, two phrases cut from Tests/Fixtures/clean.flac (its SHA-256 names the audio file).
-- Frozen: dumped once (sqlite3 .dump) and never generated from current code, so that an edit to
-- a shipped migration cannot change what the migration tests start from.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1 loops, groups, phrases, audio, study');
CREATE TABLE IF NOT EXISTS "audioAsset" ("sha256" TEXT PRIMARY KEY NOT NULL, "path" TEXT NOT NULL UNIQUE, "format" TEXT NOT NULL, "sampleRate" INTEGER NOT NULL, "channelCount" INTEGER NOT NULL, "frameCount" INTEGER NOT NULL, "byteCount" INTEGER NOT NULL, "createdAt" DATETIME NOT NULL);
INSERT INTO audioAsset VALUES('a41aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993','audio/a4/1aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993','flac',16000,1,154828,116219,'2026-01-01 10:00:00.000');
CREATE TABLE IF NOT EXISTS "loop" ("id" TEXT PRIMARY KEY NOT NULL, "title" TEXT NOT NULL, "titleKey" TEXT NOT NULL, "language" TEXT, "translationLanguage" TEXT, "sourceText" TEXT NOT NULL, "createdAt" DATETIME NOT NULL, "updatedAt" DATETIME NOT NULL, "revision" INTEGER NOT NULL DEFAULT 1, "ownerKey" TEXT, "originRevision" INTEGER, "editedLocally" BOOLEAN NOT NULL DEFAULT 0);
INSERT INTO loop VALUES('0f0f0f0f-0000-4000-8000-000000000001','Gare du Nord','gare du nord','fr',NULL,replace('Où est la gare ?\nÀ droite.','\n',char(10)),'2026-01-01 10:00:00.000','2026-01-01 10:00:00.000',4,NULL,NULL,0);
CREATE TABLE IF NOT EXISTS "loopTag" ("loopId" TEXT NOT NULL REFERENCES "loop"("id") ON DELETE CASCADE, "tag" TEXT NOT NULL, "tagKey" TEXT NOT NULL, PRIMARY KEY ("loopId", "tagKey"));
INSERT INTO loopTag VALUES('0f0f0f0f-0000-4000-8000-000000000001','Voyage','voyage');
CREATE TABLE IF NOT EXISTS "phraseGroup" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "loopId" TEXT NOT NULL REFERENCES "loop"("id") ON DELETE CASCADE, "position" INTEGER NOT NULL, UNIQUE ("loopId", "position"));
INSERT INTO phraseGroup VALUES(1,'0f0f0f0f-0000-4000-8000-000000000001',0);
CREATE TABLE IF NOT EXISTS "phrase" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "loopId" TEXT NOT NULL REFERENCES "loop"("id") ON DELETE CASCADE, "groupId" INTEGER NOT NULL REFERENCES "phraseGroup"("id") ON DELETE CASCADE, "position" INTEGER NOT NULL, "text" TEXT NOT NULL, "translation" TEXT, "audioSha256" TEXT REFERENCES "audioAsset"("sha256") ON DELETE RESTRICT, "startFrame" INTEGER, "endFrame" INTEGER, UNIQUE ("loopId", "position"), CHECK ((audioSha256 IS NULL) = (startFrame IS NULL) AND (startFrame IS NULL) = (endFrame IS NULL)), CHECK (startFrame IS NULL OR (startFrame >= 0 AND endFrame > startFrame)));
INSERT INTO phrase VALUES(1,'0f0f0f0f-0000-4000-8000-000000000001',1,0,'Où est la gare ?','Where is the station?','a41aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993',88900,117500);
INSERT INTO phrase VALUES(2,'0f0f0f0f-0000-4000-8000-000000000001',1,1,'À droite.',NULL,'a41aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993',123400,147400);
CREATE TABLE IF NOT EXISTS "studyEvent" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "loopId" TEXT NOT NULL REFERENCES "loop"("id") ON DELETE CASCADE, "phraseId" INTEGER REFERENCES "phrase"("id") ON DELETE SET NULL, "startedAt" DATETIME NOT NULL, "seconds" DOUBLE NOT NULL, "repetitions" INTEGER NOT NULL);
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('phraseGroup',1);
INSERT INTO sqlite_sequence VALUES('phrase',2);
CREATE INDEX "loop_on_titleKey" ON "loop"("titleKey");
CREATE INDEX "loop_on_language" ON "loop"("language");
CREATE INDEX "loop_on_updatedAt" ON "loop"("updatedAt");
CREATE INDEX "loopTag_on_tagKey" ON "loopTag"("tagKey");
CREATE INDEX "phrase_on_groupId" ON "phrase"("groupId");
CREATE INDEX "phrase_on_audioSha256" ON "phrase"("audioSha256");
CREATE INDEX "studyEvent_on_loopId" ON "studyEvent"("loopId");
CREATE INDEX "studyEvent_on_phraseId" ON "studyEvent"("phraseId");
COMMIT;
