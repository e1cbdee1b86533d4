// A CodeMirror mode for a submission: Python, and the CUDA/C++ source inside a triple-quoted string that is
// a value (`cuda_src = """...`, `load_inline(..., """...`), as load_inline takes it. A docstring stays a
// Python string. The C++ part is clike's C++ mode with CUDA's own words added.
(function () {
  "use strict";
  var CUDA_WORDS = "__global__ __device__ __host__ __shared__ __constant__ __restrict__ __launch_bounds__ " +
    "__syncthreads __syncwarp threadIdx blockIdx blockDim gridDim warpSize dim3 half half2 __half __half2 " +
    "__nv_bfloat16 float2 float4 int2 int4 atomicAdd __shfl_sync __shfl_down_sync cudaStream_t";

  CodeMirror.defineMode("python-cuda", function (config) {
    var python = CodeMirror.getMode(config, { name: "python", version: 3 });
    var cuda = CodeMirror.getMode(config, { name: "text/x-c++src", types: words(CUDA_WORDS) });
    var OPEN = /^[rR]?"""/;

    function words(text) {
      var set = {};
      text.split(" ").forEach(function (w) { set[w] = true; });
      // Keep C++'s own types too: clike's C++ mode checks one set for them.
      "int long char short double float unsigned signed void bool auto size_t".split(" ").forEach(function (w) { set[w] = true; });
      return set;
    }

    return {
      startState: function () { return { py: CodeMirror.startState(python), c: null }; },
      copyState: function (s) {
        return { py: CodeMirror.copyState(python, s.py), c: s.c && CodeMirror.copyState(cuda, s.c) };
      },
      token: function (stream, state) {
        if (state.c) {
          if (stream.match('"""')) { state.c = null; return "string"; }
          // Hand the C++ mode the line up to the closing quotes only.
          var line = stream.string, end = line.indexOf('"""', stream.pos);
          if (end > -1) stream.string = line.slice(0, end);
          var style = cuda.token(stream, state.c);
          stream.string = line;
          return style;
        }
        // A triple-quoted string after `=`, `(` or `,` is a value: read its contents as CUDA.
        if (OPEN.test(stream.string.slice(stream.pos)) && /[=(,]\s*$/.test(stream.string.slice(0, stream.pos))) {
          stream.match(OPEN);
          state.c = CodeMirror.startState(cuda, 0);
          return "string";
        }
        return python.token(stream, state.py);
      },
      indent: function (state, after, line) {
        return state.c ? CodeMirror.Pass : python.indent(state.py, after, line);
      },
      innerMode: function (state) {
        return state.c ? { state: state.c, mode: cuda } : { state: state.py, mode: python };
      },
      lineComment: "#",
    };
  });
})();
