# A thin layer over the npm scripts (STYLE.md). `make run` and `make test`
# work on a fresh Debian 12 machine with Node 20 and npm.
.PHONY: install build run test bench tools clean corpus-tables corpus-text corpus-routes bench-compare corpus-ua corpus-pdfa

# npm ci refuses a lock file that lacks an optional dependency's entries, and a
# registry mirror without LanceDB's macOS, Windows and ARM builds (this
# machine's) writes locks without them: then install from the same lock with
# npm install, which skips optional packages it cannot fetch.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund || npm install --no-audit --no-fund --no-save
	@touch $@

install: node_modules/.installed

build: install
	npm run build

run: build
	npm start

# Tests verify PDFs with Debian's qpdf and poppler-utils, images with
# libvips-tools, fonts with hb-subset, fc-scan and fontTools (plus the Noto CJK
# collection), and run the multi-node mode against a real redis-server; test/tools.sh
# installs them when missing and running as root, and says what is missing otherwise.
tools:
	bash test/tools.sh

# The contracts are linted as API tools read them (Redocly, redocly.yaml) before the suites run.
test: build tools
	npm run lint:api
	npm test

bench: build
	npm run bench

# POST /v1/compare of two 50-page documents against a bare pool, and a
# 300-page pair timed once (bench/README.md); about a minute.
bench-compare: build
	node dist/bench/compare.js

# The corpora the corpus-* targets read (not shipped; never needed by `make test`).
# The default is the checkout's sibling ../shared; inside a git worktree elsewhere
# (or any other layout) name it: `make corpus-text SHARED=/work/shared`.
SHARED ?= $(CURDIR)/../shared

# Table agreement with camelot's CSVs on ../shared/corpus/tables/ (README
# "Table detection"); the corpus is not shipped, so this is not part of `make test`.
corpus-tables: build
	node dist/bench/corpus-tables.js $(SHARED)/corpus/tables/

# Text agreement with poppler's pdftotext on every PDF of ../shared/corpus/
# (README "Reading PDFs"); about two minutes, not part of `make test`.
corpus-text: build
	node dist/bench/corpus-text.js $(SHARED)/corpus

# Every corpus PDF through every route that takes one, outputs checked with
# qpdf and pdfsig (README "Development"); about 8 minutes, not part of `make test`.
corpus-routes: build
	node dist/bench/corpus-routes.js $(SHARED)/corpus

# PDF/UA-1 verdict agreement with veraPDF's labelled corpus on
# ../shared/corpus/verapdf/PDF_UA-1 (README "Accessibility check"): per clause,
# overall, the disagreeing files and the run time; a few seconds, not part of `make test`.
corpus-ua: build
	node dist/bench/corpus-validation.js ua $(SHARED)/corpus/verapdf

# compliance-check's PDF/A verdict agreement with veraPDF's labelled corpus on
# ../shared/corpus/verapdf/PDF_A-1b and PDF_A-2b (README "PDF/A agreement with
# veraPDF"): per clause and family, overall, the run time; not part of `make test`.
corpus-pdfa: build
	node dist/bench/corpus-validation.js pdfa-1b $(SHARED)/corpus/verapdf
	node dist/bench/corpus-validation.js pdfa-2b $(SHARED)/corpus/verapdf

clean:
	rm -rf dist node_modules
