// SPDX-License-Identifier: GPL-3.0-or-later
#include "tools/glcompare/gl_render.h"

#include <chrono>
#include <cstdlib>
#include <map>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES
#include <GL/glcorearb.h>
#include <fmt/format.h>

#include "core/sim/draw_list.h"
#include "core/sim/raster.h"

namespace passlab::gl {

struct GlRenderer::State {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  GLuint vao = 0, noise = 0;
  // Linked programs by their vertex and fragment source: a shader is compiled once, as an
  // application would, so that renders after the first measure drawing rather than compiling.
  std::map<std::pair<std::string, std::string>, GLuint> programs;
};

namespace {

constexpr float kNear = 1e-3f, kFar = 1e4f;

GLuint compile(GLenum kind, const std::string& text, std::string* error) {
  GLuint s = glCreateShader(kind);
  const char* src = text.c_str();
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[4096];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    *error = fmt::format("GLSL does not compile: {}", log);
    glDeleteShader(s);
    return 0;
  }
  return s;
}

GLuint link(const std::string& vs, const std::string& fs, std::string* error) {
  GLuint v = compile(GL_VERTEX_SHADER, vs, error), f = v ? compile(GL_FRAGMENT_SHADER, fs, error) : 0;
  if (!v || !f) return 0;
  GLuint p = glCreateProgram();
  glAttachShader(p, v);
  glAttachShader(p, f);
  glLinkProgram(p);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[4096];
    glGetProgramInfoLog(p, sizeof log, nullptr, log);
    *error = fmt::format("GLSL does not link: {}", log);
    glDeleteProgram(p);
    return 0;
  }
  return p;
}

// Each vertex reads its camera-space position and its interpolants from a buffer texture (there
// may be more interpolants than vertex attributes), and projects like sim::rasterize.
std::string vertex_shader(int interpolants) {
  std::string s = "#version 330 core\nuniform samplerBuffer corners;\nuniform vec2 focal;\n";
  for (int k = 0; k < interpolants; ++k) s += fmt::format("out vec4 v{};\n", k);
  s += "invariant gl_Position;\nvoid main() {\n";
  s += fmt::format("  int base = gl_VertexID * {};\n  vec3 p = texelFetch(corners, base).xyz;\n", interpolants + 1);
  s += fmt::format("  gl_Position = vec4(p.x * focal.x, p.y * focal.y, (p.z * {} - {}) / {}, p.z);\n", kFar + kNear,
                   2.0 * kFar * kNear, kFar - kNear);
  for (int k = 0; k < interpolants; ++k) s += fmt::format("  v{0} = texelFetch(corners, base + {1});\n", k, k + 1);
  return s + "}\n";
}

// (On a unit of its own, so that making a texture never rebinds one a shader is about to read.)
GLuint float_texture(int w, int h, const float* data) {
  GLuint t;
  glActiveTexture(GL_TEXTURE31);
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, w, h, 0, GL_RGBA, GL_FLOAT, data);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
  return t;
}

// An image with the simulator's own mip chain (so both filter the same texels), trilinear.
GLuint mipmapped_texture(const std::vector<sim::Image>& levels) {
  const GLuint t = float_texture(levels.front().width, levels.front().height, levels.front().rgba.data());
  for (std::size_t l = 1; l < levels.size(); ++l)
    glTexImage2D(GL_TEXTURE_2D, static_cast<GLint>(l), GL_RGBA32F, levels[l].width, levels[l].height, 0, GL_RGBA, GL_FLOAT,
                 levels[l].rgba.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, static_cast<GLint>(levels.size()) - 1);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  return t;
}

}  // namespace

std::unique_ptr<GlRenderer> GlRenderer::create(std::string* error) {
  // Mesa's software rasterizer even where a GPU driver exists: the comparison is with llvmpipe.
  setenv("LIBGL_ALWAYS_SOFTWARE", "1", 0);
  setenv("GALLIUM_DRIVER", "llvmpipe", 0);
  auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_display) {
    *error = "EGL has no eglGetPlatformDisplayEXT (install libegl-mesa0)";
    return nullptr;
  }
  std::unique_ptr<GlRenderer> r(new GlRenderer);
  r->s_ = std::make_unique<State>();
  State& s = *r->s_;
  s.display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  EGLint major = 0, minor = 0;
  if (s.display == EGL_NO_DISPLAY || !eglInitialize(s.display, &major, &minor) || !eglBindAPI(EGL_OPENGL_API)) {
    *error = fmt::format("no surfaceless EGL display (EGL error 0x{:x}); install libegl-mesa0 and libgl1-mesa-dri", eglGetError());
    return nullptr;
  }
  const EGLint config_attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  eglChooseConfig(s.display, config_attrs, &config, 1, &configs);
  const EGLint context_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  s.context = eglCreateContext(s.display, configs ? config : nullptr, EGL_NO_CONTEXT, context_attrs);
  if (s.context == EGL_NO_CONTEXT || !eglMakeCurrent(s.display, EGL_NO_SURFACE, EGL_NO_SURFACE, s.context)) {
    *error = fmt::format("cannot make an OpenGL 3.3 core context (EGL error 0x{:x})", eglGetError());
    return nullptr;
  }
  glGenVertexArrays(1, &s.vao);
  // The noise lattice as a 3D texture: sample_noise at integer points is the lattice exactly.
  std::vector<float> lattice(32 * 32 * 32 * 4);
  for (int z = 0; z < 32; ++z)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x) {
        const float c[3] = {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
        const auto v = ir::sample_noise(3, c);
        std::copy(v.begin(), v.end(), &lattice[static_cast<std::size_t>(((z * 32 + y) * 32 + x) * 4)]);
      }
  glGenTextures(1, &s.noise);
  glBindTexture(GL_TEXTURE_3D, s.noise);
  glTexImage3D(GL_TEXTURE_3D, 0, GL_RGBA32F, 32, 32, 32, 0, GL_RGBA, GL_FLOAT, lattice.data());
  for (GLenum p : {GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T, GL_TEXTURE_WRAP_R}) glTexParameteri(GL_TEXTURE_3D, p, GL_REPEAT);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  return r;
}

GlRenderer::~GlRenderer() {
  if (!s_ || s_->display == EGL_NO_DISPLAY) return;
  if (s_->context != EGL_NO_CONTEXT) {
    for (const auto& [source, p] : s_->programs) glDeleteProgram(p);
    glDeleteTextures(1, &s_->noise);
    glDeleteVertexArrays(1, &s_->vao);
    eglMakeCurrent(s_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(s_->display, s_->context);
  }
  eglTerminate(s_->display);
}

std::string GlRenderer::renderer() const { return reinterpret_cast<const char*>(glGetString(GL_RENDERER)); }

std::optional<sim::Image> GlRenderer::render(const sim::Scene& scene, const std::vector<const sim::FragmentShader*>& shaders,
                                             const sim::TextureSet& textures, int width, int height, std::string* error,
                                             double* milliseconds) {
  for (const sim::FragmentShader* s : shaders)
    if (!dynamic_cast<const fp::PassShader*>(s)) {
      if (error) *error = "the OpenGL comparison runs fp programs only (this target's shaders have no GLSL form)";
      return std::nullopt;
    }
  std::vector<GLuint> owned_textures, owned_buffers, framebuffers;
  auto cleanup = [&] {
    glDeleteTextures(static_cast<GLsizei>(owned_textures.size()), owned_textures.data());
    glDeleteBuffers(static_cast<GLsizei>(owned_buffers.size()), owned_buffers.data());
    glDeleteFramebuffers(static_cast<GLsizei>(framebuffers.size()), framebuffers.data());
  };
  // The frame buffer: RGBA float colour and float depth, cleared to the background.
  GLuint colour = float_texture(width, height, nullptr), depth;
  owned_textures.push_back(colour);
  glGenTextures(1, &depth);
  owned_textures.push_back(depth);
  glActiveTexture(GL_TEXTURE31);
  glBindTexture(GL_TEXTURE_2D, depth);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT32F, width, height, 0, GL_DEPTH_COMPONENT, GL_FLOAT, nullptr);
  auto framebuffer = [&](GLuint tex) {
    GLuint fb;
    glGenFramebuffers(1, &fb);
    framebuffers.push_back(fb);
    glBindFramebuffer(GL_FRAMEBUFFER, fb);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth, 0);
    return fb;
  };
  const GLuint main_fb = framebuffer(colour);
  glViewport(0, 0, width, height);
  glFinish();
  // Timed from the clear, as the simulator's render time includes clearing its frame buffer.
  const auto start = std::chrono::steady_clock::now();
  glClearColor(scene.background[0], scene.background[1], scene.background[2], scene.background[3]);
  glClearDepth(1.0);
  glDepthMask(GL_TRUE);  // (a mask left off by an earlier render would keep the depth uncleared)
  glDisable(GL_BLEND);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glBindVertexArray(s_->vao);

  sim::Projection proj{width, height, scene.fov_degrees, kNear};
  const float f = proj.focal();
  std::vector<const sim::FragmentShader*> base(shaders.begin(), shaders.end());
  for (const sim::DrawBatch& b : sim::draw_list(scene, base)) {
    const auto& shader = static_cast<const fp::PassShader&>(*b.shader);
    const int k = shader.interpolants();
    // Corner records: position, then the interpolants.
    std::vector<float> records;
    records.reserve(b.triangles.size() * 3 * static_cast<std::size_t>(k + 1) * 4);
    for (std::size_t t = 0; t < b.triangles.size(); ++t)
      for (int c = 0; c < 3; ++c) {
        const sim::Vec3& p = b.triangles[t][static_cast<std::size_t>(c)];
        records.insert(records.end(), {p.x, p.y, p.z, 1.0f});
        const float* v = b.corners.data() + (t * 3 + static_cast<std::size_t>(c)) * static_cast<std::size_t>(k) * 4;
        records.insert(records.end(), v, v + static_cast<std::size_t>(k) * 4);
      }
    GLuint buffer, corner_tex;
    glGenBuffers(1, &buffer);
    owned_buffers.push_back(buffer);
    glBindBuffer(GL_TEXTURE_BUFFER, buffer);
    glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(records.size() * sizeof(float)), records.data(), GL_STATIC_DRAW);
    glGenTextures(1, &corner_tex);
    owned_textures.push_back(corner_tex);
    glActiveTexture(GL_TEXTURE31);
    glBindTexture(GL_TEXTURE_BUFFER, corner_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, buffer);
    // Runs of opaque and of transparent triangles (the draw list puts opaque ones first).
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    for (std::size_t t = 0; t < b.triangles.size(); ++t)
      if (runs.empty() || b.opaque[runs.back().first] != b.opaque[t]) runs.push_back({t, 1});
      else ++runs.back().second;
    std::map<int, GLuint> buffers;  // intermediate buffer -> its texture now
    for (int p = 0; p < shader.passes(); ++p) {
      const bool last = p == shader.passes() - 1;
      if (shader.outputs(p) > 1) {  // one framebuffer attachment per pass here
        if (error) *error = "passes of several render targets (RDS + merge, MRDS) are not drawn with OpenGL yet";
        cleanup();
        return std::nullopt;
      }
      std::vector<std::string> images;
      const std::string fs = shader.glsl(p, [&](const std::string& n) { return textures.has(n); }, &images);
      auto key = std::make_pair(vertex_shader(k), fs);
      GLuint& prog = s_->programs[key];
      if (!prog) prog = link(key.first, key.second, error);
      if (!prog) {
        s_->programs.erase(key);
        cleanup();
        return std::nullopt;
      }
      glUseProgram(prog);
      int unit = 0;
      auto bind = [&](GLenum target, GLuint tex, const std::string& name) {
        glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
        glBindTexture(target, tex);
        glUniform1i(glGetUniformLocation(prog, name.c_str()), unit++);
      };
      bind(GL_TEXTURE_BUFFER, corner_tex, "corners");
      bind(GL_TEXTURE_3D, s_->noise, "noise_lattice");
      for (std::size_t r = 0; r < shader.restores(p).size(); ++r) bind(GL_TEXTURE_2D, buffers[shader.restores(p)[r]], fmt::format("restore{}", r));
      for (std::size_t i = 0; i < images.size(); ++i) {
        const GLuint t = mipmapped_texture(*textures.levels(images[i]));
        owned_textures.push_back(t);
        bind(GL_TEXTURE_2D, t, fmt::format("image{}", i));
      }
      glUniform2f(glGetUniformLocation(prog, "focal"), f / (0.5f * static_cast<float>(width)), f / (0.5f * static_cast<float>(height)));
      // A pass's value goes to a fresh texture (it may replace one this pass reads).
      GLuint target_tex = 0;
      if (last) {
        glBindFramebuffer(GL_FRAMEBUFFER, main_fb);
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
      } else {
        target_tex = float_texture(width, height, nullptr);
        owned_textures.push_back(target_tex);
        framebuffer(target_tex);
        glDisable(GL_BLEND);
        glClear(GL_COLOR_BUFFER_BIT);
      }
      for (const auto& [first, count] : runs) {
        const bool opaque = b.opaque[first];
        glDepthFunc(opaque && p > 0 ? GL_EQUAL : GL_LESS);
        glDepthMask(opaque && p == 0 ? GL_TRUE : GL_FALSE);
        glDrawArrays(GL_TRIANGLES, static_cast<GLint>(first * 3), static_cast<GLsizei>(count * 3));
      }
      if (!last) buffers[shader.saves(p)] = target_tex;
    }
  }
  glFinish();
  if (milliseconds) *milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  sim::Image out(width, height);
  std::vector<float> rows(static_cast<std::size_t>(width) * height * 4);
  glBindFramebuffer(GL_FRAMEBUFFER, main_fb);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_FLOAT, rows.data());
  for (int y = 0; y < height; ++y)  // OpenGL's rows go up from the bottom
    std::copy_n(&rows[static_cast<std::size_t>(height - 1 - y) * width * 4], static_cast<std::size_t>(width) * 4, out.at(0, y));
  cleanup();
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    *error = fmt::format("OpenGL error 0x{:x}", e);
    return std::nullopt;
  }
  return out;
}

}  // namespace passlab::gl
