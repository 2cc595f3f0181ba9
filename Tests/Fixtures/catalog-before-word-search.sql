--
-- PostgreSQL database dump
--

\restrict Bhn0qTPPgJS7IgsKNikqUtZbnOVOTP7k1YcTp5fcFsqROBVLucGTzAkCjFuKBKD

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';


--
-- Name: catalog_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.catalog_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN UPDATE catalog_change SET version = version + 1; RETURN NULL; END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: author; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.author (
    key text NOT NULL,
    fingerprint text NOT NULL,
    name text,
    namekey text
);


--
-- Name: blob_ref; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.blob_ref (
    sha256 text NOT NULL,
    loopid text NOT NULL
);


--
-- Name: blocked_key; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.blocked_key (
    key text NOT NULL,
    reason text NOT NULL,
    since bigint NOT NULL
);


--
-- Name: catalog_change; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.catalog_change (
    version bigint NOT NULL
);


--
-- Name: download; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.download (
    loopid text NOT NULL,
    day bigint NOT NULL,
    count bigint NOT NULL
);


--
-- Name: download_seen; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.download_seen (
    loopid text NOT NULL,
    day bigint NOT NULL,
    client text NOT NULL
);


--
-- Name: loop; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.loop (
    id text NOT NULL,
    shortid text NOT NULL,
    authorkey text NOT NULL,
    revision bigint NOT NULL,
    title text NOT NULL,
    language text,
    translationlanguage text,
    tags text NOT NULL,
    tagkeys text NOT NULL,
    groupcount bigint NOT NULL,
    phrasecount bigint NOT NULL,
    seconds double precision NOT NULL,
    published bigint NOT NULL,
    updated bigint NOT NULL,
    featured boolean DEFAULT false NOT NULL,
    listed boolean DEFAULT true NOT NULL,
    bundlesha256 text NOT NULL,
    bundlebytes bigint NOT NULL,
    content bytea NOT NULL,
    searchtext text NOT NULL,
    takendown text
);


--
-- Name: loop_catalog_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.loop_catalog_schema (
    version bigint NOT NULL
);


--
-- Name: nonce; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nonce (
    nonce text NOT NULL,
    expires bigint NOT NULL
);


--
-- Name: upload_day; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.upload_day (
    authorkey text NOT NULL,
    day bigint NOT NULL,
    bytes bigint NOT NULL
);


--
-- Data for Name: author; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.author (key, fingerprint, name, namekey) FROM stdin;
DjjyV5/41JhiFCqhWJZ5mcAAt5HRq48s9c/YNCLWzDo=	b4ed:cbfd:f6a1:f526:8a50:edec:5e80:7763	Élodie B	elodie b
\.


--
-- Data for Name: blob_ref; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.blob_ref (sha256, loopid) FROM stdin;
a41aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993	86fafcfb-5410-48ef-8b83-696be359d576
c31baf55e2937e4a48b4c7561b74348ad8e74cbf4ed205d89827789f1e0cb135	86fafcfb-5410-48ef-8b83-696be359d576
a41aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993	4dd3a946-77cf-4fdf-be58-b63bab292aa3
dfcdf3a1453056c658bdc5e331289a8a4a8a0d88756b8cffd27dffe4f4cf6f02	4dd3a946-77cf-4fdf-be58-b63bab292aa3
92a2c7b6ba200cfc47af23f8a3d2a50d16e05fe9237883e181a951b15c2f0421	0db6e0d2-75b2-4c1d-84c4-0b07f3e354fd
a41aaaf252bdd15a8e8e5ad18427fa4f59c1e653bb08dee0982ee63ffd144993	0db6e0d2-75b2-4c1d-84c4-0b07f3e354fd
\.


--
-- Data for Name: blocked_key; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.blocked_key (key, reason, since) FROM stdin;
\.


--
-- Data for Name: catalog_change; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.catalog_change (version) FROM stdin;
5
\.


--
-- Data for Name: download; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.download (loopid, day, count) FROM stdin;
\.


--
-- Data for Name: download_seen; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.download_seen (loopid, day, client) FROM stdin;
\.


--
-- Data for Name: loop; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.loop (id, shortid, authorkey, revision, title, language, translationlanguage, tags, tagkeys, groupcount, phrasecount, seconds, published, updated, featured, listed, bundlesha256, bundlebytes, content, searchtext, takendown) FROM stdin;
86fafcfb-5410-48ef-8b83-696be359d576	86fafc	DjjyV5/41JhiFCqhWJZ5mcAAt5HRq48s9c/YNCLWzDo=	1	Fixture	fr	\N	[]	||	2	5	7.239999999999999	1795812391495	1795812391495	f	t	c31baf55e2937e4a48b4c7561b74348ad8e74cbf4ed205d89827789f1e0cb135	117332	\\x7b2267726f757073223a5b5b7b22636c6970223a7b22656e64223a312e37352c227374617274223a302e33332c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22426f6e6a6f75722c206d6164616d652e227d2c7b22636c6970223a7b22656e64223a332e38342c227374617274223a322e31362c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22556e20636166c3a92c207327696c20766f757320706c61c3ae742e227d2c7b22636c6970223a7b22656e64223a342e36322c227374617274223a332e39362c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a224d657263692e227d5d2c5b7b22636c6970223a7b22656e64223a372e33372c227374617274223a352e35322c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a224fc3b920657374206c6120676172652c207327696c20766f757320706c61c3ae74203f227d2c7b22636c6970223a7b22656e64223a392e332c227374617274223a372e36372c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22c3802064726f6974652c207075697320746f75742064726f69742e227d5d5d2c2274616b6573223a5b7b226279746573223a3131363231392c226368616e6e656c73223a312c226672616d6573223a3135343832382c2273616d706c6552617465223a31363030302c22736861323536223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d5d7d	fixture\nbonjour, madame.\n\nun cafe, s'il vous plait.\n\nmerci.\n\nou est la gare, s'il vous plait ?\n\na droite, puis tout droit.\n	\N
4dd3a946-77cf-4fdf-be58-b63bab292aa3	4dd3a9	DjjyV5/41JhiFCqhWJZ5mcAAt5HRq48s9c/YNCLWzDo=	1	Übung macht	fr	\N	["Gare"]	|gare|	2	5	7.239999999999999	1795812391552	1795812391552	f	t	dfcdf3a1453056c658bdc5e331289a8a4a8a0d88756b8cffd27dffe4f4cf6f02	117344	\\x7b2267726f757073223a5b5b7b22636c6970223a7b22656e64223a312e37352c227374617274223a302e33332c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22426f6e6a6f75722c206d6164616d652e227d2c7b22636c6970223a7b22656e64223a332e38342c227374617274223a322e31362c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22556e20636166c3a92c207327696c20766f757320706c61c3ae742e227d2c7b22636c6970223a7b22656e64223a342e36322c227374617274223a332e39362c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a224d657263692e227d5d2c5b7b22636c6970223a7b22656e64223a372e33372c227374617274223a352e35322c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a224fc3b920657374206c6120676172652c207327696c20766f757320706c61c3ae74203f227d2c7b22636c6970223a7b22656e64223a392e332c227374617274223a372e36372c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22c3802064726f6974652c207075697320746f75742064726f69742e227d5d5d2c2274616b6573223a5b7b226279746573223a3131363231392c226368616e6e656c73223a312c226672616d6573223a3135343832382c2273616d706c6552617465223a31363030302c22736861323536223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d5d7d	ubung macht\ngare\nbonjour, madame.\n\nun cafe, s'il vous plait.\n\nmerci.\n\nou est la gare, s'il vous plait ?\n\na droite, puis tout droit.\n	\N
0db6e0d2-75b2-4c1d-84c4-0b07f3e354fd	0db6e0	DjjyV5/41JhiFCqhWJZ5mcAAt5HRq48s9c/YNCLWzDo=	1	Zweite	fr	\N	[]	||	2	5	7.239999999999999	1795812391610	1795812391773	f	f	92a2c7b6ba200cfc47af23f8a3d2a50d16e05fe9237883e181a951b15c2f0421	117334	\\x7b2267726f757073223a5b5b7b22636c6970223a7b22656e64223a312e37352c227374617274223a302e33332c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22426f6e6a6f75722c206d6164616d652e227d2c7b22636c6970223a7b22656e64223a332e38342c227374617274223a322e31362c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22556e20636166c3a92c207327696c20766f757320706c61c3ae742e227d2c7b22636c6970223a7b22656e64223a342e36322c227374617274223a332e39362c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a224d657263692e227d5d2c5b7b22636c6970223a7b22656e64223a372e33372c227374617274223a352e35322c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a224fc3b920657374206c6120676172652c207327696c20766f757320706c61c3ae74203f227d2c7b22636c6970223a7b22656e64223a392e332c227374617274223a372e36372c2274616b65223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d2c2274657874223a22c3802064726f6974652c207075697320746f75742064726f69742e227d5d5d2c2274616b6573223a5b7b226279746573223a3131363231392c226368616e6e656c73223a312c226672616d6573223a3135343832382c2273616d706c6552617465223a31363030302c22736861323536223a2261343161616166323532626464313561386538653561643138343237666134663539633165363533626230386465653039383265653633666664313434393933227d5d7d	zweite\nbonjour, madame.\n\nun cafe, s'il vous plait.\n\nmerci.\n\nou est la gare, s'il vous plait ?\n\na droite, puis tout droit.\n	\N
\.


--
-- Data for Name: loop_catalog_schema; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.loop_catalog_schema (version) FROM stdin;
1
2
3
4
5
6
7
\.


--
-- Data for Name: nonce; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.nonce (nonce, expires) FROM stdin;
ba11ee10693300e7d7da41ffff83444e	1795812991
da0be8d014979d6f724937bc10574c01	1795812991
51dd3998ead0d76bca2598fc29782266	1795812991
e1acec65bf1f2052467bdcae502c45bb	1795812991
\.


--
-- Data for Name: upload_day; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.upload_day (authorkey, day, bytes) FROM stdin;
DjjyV5/41JhiFCqhWJZ5mcAAt5HRq48s9c/YNCLWzDo=	20784	352010
\.


--
-- Name: author author_namekey_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.author
    ADD CONSTRAINT author_namekey_key UNIQUE (namekey);


--
-- Name: author author_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.author
    ADD CONSTRAINT author_pkey PRIMARY KEY (key);


--
-- Name: blob_ref blob_ref_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blob_ref
    ADD CONSTRAINT blob_ref_pkey PRIMARY KEY (sha256, loopid);


--
-- Name: blocked_key blocked_key_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocked_key
    ADD CONSTRAINT blocked_key_pkey PRIMARY KEY (key);


--
-- Name: download download_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.download
    ADD CONSTRAINT download_pkey PRIMARY KEY (loopid, day);


--
-- Name: download_seen download_seen_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.download_seen
    ADD CONSTRAINT download_seen_pkey PRIMARY KEY (loopid, day, client);


--
-- Name: loop loop_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.loop
    ADD CONSTRAINT loop_pkey PRIMARY KEY (id);


--
-- Name: loop loop_shortid_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.loop
    ADD CONSTRAINT loop_shortid_key UNIQUE (shortid);


--
-- Name: nonce nonce_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nonce
    ADD CONSTRAINT nonce_pkey PRIMARY KEY (nonce);


--
-- Name: upload_day upload_day_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_day
    ADD CONSTRAINT upload_day_pkey PRIMARY KEY (authorkey, day);


--
-- Name: blob_ref_loop; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX blob_ref_loop ON public.blob_ref USING btree (loopid);


--
-- Name: loop_author; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX loop_author ON public.loop USING btree (authorkey);


--
-- Name: loop_latest; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX loop_latest ON public.loop USING btree (listed, updated DESC);


--
-- Name: loop_search; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX loop_search ON public.loop USING gin (searchtext public.gin_trgm_ops);


--
-- Name: author author_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER author_changed AFTER UPDATE ON public.author FOR EACH STATEMENT EXECUTE FUNCTION public.catalog_changed();


--
-- Name: loop loop_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER loop_changed AFTER INSERT OR UPDATE ON public.loop FOR EACH STATEMENT EXECUTE FUNCTION public.catalog_changed();


--
-- Name: loop loop_authorkey_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.loop
    ADD CONSTRAINT loop_authorkey_fkey FOREIGN KEY (authorkey) REFERENCES public.author(key);


--
-- PostgreSQL database dump complete
--

\unrestrict Bhn0qTPPgJS7IgsKNikqUtZbnOVOTP7k1YcTp5fcFsqROBVLucGTzAkCjFuKBKD

