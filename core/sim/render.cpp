// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/render.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "core/sim/draw_list.h"
#include "core/sim/memory.h"
#include "core/sim/parallel.h"
#include "core/sim/screen_derivatives.h"

namespace passlab::sim {

namespace {

constexpr int kTile = 64;  // screen tiles of kTile x kTile pixels are the unit of parallel work


// Lanes [j, e) of one interpolant component: v0 w0 + v1 w1 + v2 w2, summed in that order.
PASSLAB_HOT_CLONES void interpolate(float* __restrict d, int j, int e, float v0, float v1, float v2, const float* __restrict w0,
                                    const float* __restrict w1, const float* __restrict w2) {
  for (int i = j; i < e; ++i) d[i] = v0 * w0[i] + v1 * w1[i] + v2 * w2[i];
}

// A batch of the draw list with its fragments.
struct Batch : DrawBatch {
  std::vector<std::uint32_t> first_of_triangle;  // fragments of triangle i: [first[i], first[i + 1])
  std::vector<Fragment> fragments;               // in rasterization order
  // The fragments by screen tile: tile t's are by_tile[tile_start[t], tile_start[t + 1]), in
  // rasterization order.
  std::vector<std::uint32_t> tile_start, by_tile;
  // Per triangle, when the shader has derivative interpolants: the corners' barycentric planes
  // through the eye, p1 x p2, p2 x p0 and p0 x p1.
  std::vector<std::array<Vec3, 3>> planes;
  // Per triangle, when multisampling: 1/z = a x + b y + c at screen point (x, y).
  std::vector<std::array<float, 3>> inverse_depth;
};

// The large buffers of a render, kept by each rendering thread for its next render (when under
// kKeepBytes each), which then reuses memory instead of faulting in fresh pages: on a virtual
// machine that costs tens of milliseconds a frame.
struct Arena {
  std::vector<Fragment> fragments;
  std::vector<std::uint32_t> by_tile;
  std::vector<float> depth;
  std::vector<std::vector<float>> buffers;
  std::vector<std::vector<Fragment>> parts;  // rasterized chunks of a batch
};
constexpr std::size_t kKeepBytes = std::size_t{64} << 20;

Arena& arena() {
  thread_local Arena a;
  return a;
}

template <class T>
void keep_if_small(std::vector<T>& v) {
  if (v.capacity() * sizeof(T) > kKeepBytes) std::vector<T>().swap(v);
}

// Makes v at least n long (new elements zero, old ones kept).
void grow(std::vector<float>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

// The frame buffer of one render.
struct Target {
  int width, height;
  int samples = 1;            // per pixel (multisampling)
  std::vector<float> colour;  // RGBA per sample, a pixel's samples together
  std::vector<float> depth;   // camera z per sample; +inf: nothing drawn
};

class Renderer {
 public:
  Renderer(const RenderOptions& o, Target& t, RenderStats& s, int threads) : opt_(o), target_(t), stats_(s), threads_(threads) {}

  bool cancelled() const { return opt_.cancel && opt_.cancel->load(); }
  int probe_x_ = -1, probe_y_ = -1;  // in target pixels

  bool draw(Batch& b, std::string* error) {
    // Passes whose values live per pixel rasterize each screen tile's triangles in the tile's own
    // work (as a tiling GPU does, every pass resubmitting the geometry); the F-buffer needs every
    // fragment's place in the batch's rasterization order, so it rasterizes the batch up front.
    if (tile_raster()) bin_triangles(b);
    else raster_and_bin(b);
    if (cancelled()) return true;
    b.inverse_depth.clear();
    if (target_.samples > 1) {
      const double focal = projection().focal();
      const double cx = 0.5 * target_.width, cy = 0.5 * target_.height;
      for (const auto& t : b.triangles) {
        // The plane n.p = d through the corners meets the ray (x', y', 1) z at 1/z = n.(x', y', 1) / d.
        const Vec3 n = cross(t[1] - t[0], t[2] - t[0]);
        const double d = dot(n, t[0]);
        if (d == 0) {
          b.inverse_depth.push_back({0, 0, 0});  // seen edge on: no fragments
          continue;
        }
        b.inverse_depth.push_back({static_cast<float>(n.x / (focal * d)), static_cast<float>(-n.y / (focal * d)),
                                   static_cast<float>((n.z - n.x * cx / focal + n.y * cy / focal) / d)});
      }
    }
    b.planes.clear();
    for (int i = 0; i < b.shader->interpolants(); ++i)
      if (b.shader->screen_derivatives(i) || b.shader->screen_difference(i)) {
        for (const auto& t : b.triangles) b.planes.push_back({cross(t[1], t[2]), cross(t[2], t[0]), cross(t[0], t[1])});
        break;
      }
    const int passes = b.shader->passes();
    stats_.passes = std::max(stats_.passes, passes);
    if (RenderCapture* c = opt_.capture) {
      if (c->pass_images)
        while (static_cast<int>(c->passes.size()) < passes) c->passes.emplace_back(target_.width, target_.height);
      // The probed pixel's fragments, in order: their rank is their layer (for tiles rasterized
      // in their work, counted there).
      probe_layer_.clear();
      for (std::uint32_t i = 0; i < b.fragments.size(); ++i)
        if (b.fragments[i].x == probe_x_ && b.fragments[i].y == probe_y_) probe_layer_[i] = static_cast<int>(probe_layer_.size());
    }
    buffers_.resize(static_cast<std::size_t>(b.shader->buffers()));  // (each is sized and cleared below)
    switch (opt_.storage) {
      case Storage::SinglePass:
      case Storage::RenderToTexture:
        for (auto& buf : buffers_) buf.assign(static_cast<std::size_t>(target_.width) * target_.height * 4, 0.0f);
        for (int p = 0; p < passes && !cancelled(); ++p) run_pass(b, p, 0, 0, 0);
        return true;
      case Storage::FBuffer:
        return opt_.overflow == Overflow::Window ? fbuffer_windows(b) : fbuffer_restart(b, error);
    }
    return true;
  }
  float fov_ = 40;
  std::vector<std::vector<float>> buffers_;  // intermediate textures or F-buffers

 private:
  bool tile_raster() const { return opt_.storage != Storage::FBuffer; }
  PixelRect tile_rect(int t) const {
    const int x0 = (t % tiles_x()) * kTile, y0 = (t / tiles_x()) * kTile;
    return {x0, y0, std::min(target_.width, x0 + kTile), std::min(target_.height, y0 + kTile)};
  }
  Projection projection() const {
    Projection proj{target_.width, target_.height, fov_, 1e-3f};
    proj.samples = target_.samples;
    return proj;
  }

  // Sorts a batch's triangles into the screen tiles their bounds overlap, each tile's in order.
  void bin_triangles(Batch& b) {
    const Projection proj = projection();
    const std::size_t tiles = static_cast<std::size_t>(tiles_x()) * tiles_y();
    std::vector<PixelRect> bounds(b.triangles.size());
    b.tile_start.assign(tiles + 1, 0);
    auto each_tile = [&](const PixelRect& r, auto fn) {
      if (r.empty()) return;
      for (int ty = r.y0 / kTile; ty <= (r.y1 - 1) / kTile; ++ty)
        for (int tx = r.x0 / kTile; tx <= (r.x1 - 1) / kTile; ++tx) fn(static_cast<std::size_t>(ty) * tiles_x() + tx);
    };
    for (std::size_t i = 0; i < b.triangles.size(); ++i) {
      bounds[i] = screen_bounds(b.triangles[i], proj);
      each_tile(bounds[i], [&](std::size_t t) { ++b.tile_start[t + 1]; });
    }
    for (std::size_t t = 0; t < tiles; ++t) b.tile_start[t + 1] += b.tile_start[t];
    std::vector<std::uint32_t> next(b.tile_start.begin(), b.tile_start.end() - 1);
    b.by_tile.resize(b.tile_start.back());
    for (std::size_t i = 0; i < b.triangles.size(); ++i)
      each_tile(bounds[i], [&](std::size_t t) { b.by_tile[next[t]++] = static_cast<std::uint32_t>(i); });
    b.fragments.clear();
  }

  // Rasterizes a batch and sorts its fragments into screen tiles. Chunks of triangles are
  // rasterized on the threads, each counting its fragments per tile; then each chunk's fragments go
  // to their place in rasterization order (triangle by triangle, so each triangle's fragments are
  // one range) and into their tiles' lists, which keep that order.
  void raster_and_bin(Batch& b) {
    const Projection proj = projection();
    const std::size_t triangles = b.triangles.size(), tiles = static_cast<std::size_t>(tiles_x()) * tiles_y();
    const int chunks = static_cast<int>(std::clamp<std::size_t>(triangles, 1, static_cast<std::size_t>(threads_) * 4));
    auto first_triangle = [&](int c) { return triangles * static_cast<std::size_t>(c) / static_cast<std::size_t>(chunks); };
    std::vector<std::vector<Fragment>>& parts = arena().parts;
    parts.resize(static_cast<std::size_t>(std::max<int>(chunks, static_cast<int>(parts.size()))));
    std::vector<std::uint32_t> per_tile(static_cast<std::size_t>(chunks) * tiles, 0);  // chunk c, tile t: [c * tiles + t]
    b.first_of_triangle.assign(triangles + 1, 0);
    auto tile_of = [&](const Fragment& f) { return static_cast<std::size_t>(f.y / kTile) * tiles_x() + f.x / kTile; };
    parallel_for(chunks, threads_, opt_.cancel, [&](int c) {
      std::vector<Fragment>& part = parts[static_cast<std::size_t>(c)];
      part.clear();
      std::uint32_t* count = per_tile.data() + static_cast<std::size_t>(c) * tiles;
      std::vector<std::array<Vec3, 3>> one(1);
      for (std::size_t i = first_triangle(c); i < first_triangle(c + 1); ++i) {
        one[0] = b.triangles[i];
        const std::size_t before = part.size();
        rasterize(one, proj, Cull::None, part);
        for (std::size_t f = before; f < part.size(); ++f) {
          part[f].triangle = static_cast<std::uint32_t>(i);
          ++count[tile_of(part[f])];
        }
        b.first_of_triangle[i + 1] = static_cast<std::uint32_t>(part.size() - before);
      }
    });
    if (cancelled()) return;
    for (std::size_t i = 0; i < triangles; ++i) b.first_of_triangle[i + 1] += b.first_of_triangle[i];
    // Tile t's list starts at tile_start[t]; chunk c's fragments of it follow those of chunks before.
    b.tile_start.assign(tiles + 1, 0);
    for (std::size_t t = 0; t < tiles; ++t) {
      std::uint32_t at = b.tile_start[t];
      for (int c = 0; c < chunks; ++c) {
        const std::uint32_t n = per_tile[static_cast<std::size_t>(c) * tiles + t];
        per_tile[static_cast<std::size_t>(c) * tiles + t] = at;
        at += n;
      }
      b.tile_start[t + 1] = at;
    }
    const std::size_t total = b.first_of_triangle.back();
    reserve_large(b.fragments, total);
    b.fragments.resize(total);
    b.by_tile.resize(total);
    parallel_for(chunks, threads_, opt_.cancel, [&](int c) {
      const std::vector<Fragment>& part = parts[static_cast<std::size_t>(c)];
      const std::uint32_t offset = b.first_of_triangle[first_triangle(c)];
      std::copy(part.begin(), part.end(), b.fragments.begin() + offset);
      std::uint32_t* cursor = per_tile.data() + static_cast<std::size_t>(c) * tiles;
      for (std::uint32_t j = 0; j < part.size(); ++j) b.by_tile[cursor[tile_of(part[j])]++] = offset + j;
    });
  }

  // Derivative and difference interpolants (FragmentShader::screen_derivatives, screen_difference) for n fragments of triangle
  // `tri`, to lanes j.. of `in` (sim/screen_derivatives.h), a pixel apart.
  void screen_derivatives(const Batch& b, const Fragment* frags, std::uint32_t tri, const std::uint32_t* list, int n,
                          const std::vector<int>& which, const float* c, int k, float* in, int j, float focal) const {
    const std::array<Vec3, 3>& plane = b.planes[tri];
    const float cx = 0.5f * static_cast<float>(target_.width), cy = 0.5f * static_cast<float>(target_.height);
    auto weights = [&](float px, float py, float q[3]) { plane_weights(plane, {(px - cx) / focal, (cy - py) / focal, 1.0f}, q); };
    const bool quad = b.shader->quad_differences();  // the neighbours are the quad partners
    for (int f = 0; f < n; ++f) {
      const Fragment& frag = frags[list[f]];
      const float px = frag.x + 0.5f, py = frag.y + 0.5f;
      float q[3], qx[3], qy[3];
      const float w[3] = {1 - frag.b1 - frag.b2, frag.b1, frag.b2};
      weights(px, py, q);
      weights(quad && (frag.x & 1) ? px - 1 : px + 1, py, qx);
      weights(px, quad && (frag.y & 1) ? py - 1 : py + 1, qy);
      for (int i : which) {
        float* out = in + static_cast<std::size_t>(i) * 4 * kBatch + static_cast<std::size_t>(j + f);
        if (const int d = b.shader->screen_difference(i)) difference_values(d, w, q, qx, qy, c + i * 4, c + (k + i) * 4, c + (2 * k + i) * 4, out, kBatch);
        else derivative_values(q, qx, qy, c + i * 4, c + (k + i) * 4, c + (2 * k + i) * 4, out, kBatch);
      }
    }
  }

  // Asks for a tile's colour and depth to be brought into the cache while its fragments are shaded.
  void prefetch_tile(int t) const {
    const int x0 = (t % tiles_x()) * kTile, y0 = (t / tiles_x()) * kTile;
    const int x1 = std::min(target_.width, x0 + kTile), y1 = std::min(target_.height, y0 + kTile);
    for (int y = y0; y < y1; ++y) {
      const std::size_t row = static_cast<std::size_t>(y) * target_.width;
      const std::size_t n = static_cast<std::size_t>(target_.samples);
      for (std::size_t at = (row + x0) * n * 4; at < (row + x1) * n * 4; at += 16) __builtin_prefetch(target_.colour.data() + at, 1);
      for (std::size_t at = (row + x0) * n; at < (row + x1) * n; at += 16) __builtin_prefetch(target_.depth.data() + at, 1);
    }
  }
  int tiles_x() const { return (target_.width + kTile - 1) / kTile; }
  int tiles_y() const { return (target_.height + kTile - 1) / kTile; }

  // X800: every pass submits all of the geometry, and only the fragments inside the current
  // window of F-buffer slots go on to be shaded.
  bool fbuffer_windows(Batch& b) {
    const long n = static_cast<long>(b.fragments.size());
    const long size = opt_.fbuffer_slots > 0 ? opt_.fbuffer_slots : std::max(1L, n);
    const long windows = std::max(1L, (n + size - 1) / size);
    stats_.windows += windows;
    stats_.overflows += windows - 1;
    for (auto& buf : buffers_) buf.assign(static_cast<std::size_t>(size) * 4, 0.0f);
    for (long w = 0; w < windows && !cancelled(); ++w)
      for (int p = 0; p < b.shader->passes() && !cancelled(); ++p)
        run_pass(b, p, static_cast<std::uint32_t>(w * size), static_cast<std::uint32_t>(std::min(n, (w + 1) * size)),
                 b.fragments.size());
    return true;
  }

  // 9800: the first pass of a batch tells whether it overflowed; then the batch is resubmitted
  // as two halves (by triangles), recursively, wasting that first pass.
  bool fbuffer_restart(Batch& b, std::string* error) {
    const long n = static_cast<long>(b.fragments.size());
    const long size = opt_.fbuffer_slots > 0 ? opt_.fbuffer_slots : std::max(1L, n);
    for (auto& buf : buffers_) buf.assign(static_cast<std::size_t>(size) * 4, 0.0f);
    return restart(b, 0, b.triangles.size(), size, error);
  }
  bool restart(Batch& b, std::size_t lo, std::size_t hi, long size, std::string* error) {
    if (lo >= hi) return true;
    const std::uint32_t first = b.first_of_triangle[lo], last = b.first_of_triangle[hi];
    const long count = static_cast<long>(last - first);
    if (count > size) {
      // The first pass ran on the slots there were, then the overflow query said it did not fit.
      ++stats_.geometry_submissions;
      ++stats_.overflows;
      stats_.fragments_rasterized += count;
      stats_.fragments_shaded += size;
      if (hi - lo == 1) {
        if (error) *error = fmt::format("one triangle alone covers {} fragments, more than the F-buffer's {} slots; "
                                        "use a larger --fbuffer-size or the window policy", count, size);
        return false;
      }
      const std::size_t mid = lo + (hi - lo) / 2;
      return restart(b, lo, mid, size, error) && restart(b, mid, hi, size, error);
    }
    ++stats_.windows;
    for (int p = 0; p < b.shader->passes() && !cancelled(); ++p) run_pass(b, p, first, last, static_cast<std::size_t>(count));
    return true;
  }

  // The value of a fragment's intermediate slot: its pixel (render-to-texture) or its place in
  // the current F-buffer window.
  std::size_t slot(const Fragment& f, std::uint32_t index, std::uint32_t window_start) const {
    if (opt_.storage == Storage::FBuffer) return index - window_start;
    return static_cast<std::size_t>(f.y) * target_.width + f.x;
  }

  // One submission of geometry, shaded by pass p per screen tile in parallel; each tile's
  // fragments then take the depth test, write their intermediate value or blend their colour in
  // rasterization order. F-buffer: the batch rasterized to `rasterized` fragments, of which
  // [begin, end) are shaded. Otherwise each tile rasterizes its own triangles (the arguments are
  // unused).
  // Where a batch's results go, fragment by fragment and in order: the depth test, then the
  // intermediate value (a texture or the F-buffer) or, after the last pass, the colour. Returns the
  // intermediate values written.
  long store_results(const Batch& b, int p, const Fragment* frags, const std::uint32_t* list, int n, const float* out, std::uint32_t begin,
                     const std::map<std::uint32_t, int>& layer_of) {
    const bool last = p == b.shader->passes() - 1;
    const int outputs = b.shader->outputs(p);
    // The last pass's value that is the colour; its others (a shader's other outputs) go to buffers.
    int colour = 0;
    if (last)
      for (int k = 0; k < outputs; ++k)
        if (b.shader->saves(p, k) < 0) {
          colour = k;
          break;
        }
    const float* shown = out + static_cast<std::size_t>(colour) * 4 * kBatch;
    long written = 0;
    // Value k of fragment j to its buffer (multiple render targets: each value to its own).
    auto save = [&](int k, int j, const Fragment& f, std::uint32_t index) {
      const int buffer = b.shader->saves(p, k);
      if (buffer < 0) return;  // (a partition that fails its checks: no buffer holds it)
      const float* value = out + static_cast<std::size_t>(k) * 4 * kBatch;
      float* dst = buffers_[static_cast<std::size_t>(buffer)].data() + slot(f, index, begin) * 4;
      for (int comp = 0; comp < 4; ++comp) dst[comp] = value[static_cast<std::size_t>(comp) * kBatch + static_cast<std::size_t>(j)];
      ++written;
    };
    for (int j = 0; j < n; ++j) {
      const std::uint32_t index = list[j];
      const Fragment& f = frags[index];
      const float v[4] = {shown[j], shown[kBatch + j], shown[2 * kBatch + j], shown[3 * kBatch + j]};
      if (RenderCapture* c = opt_.capture) {
        if (c->pass_images) std::copy(v, v + 4, c->passes[static_cast<std::size_t>(p)].at(f.x, f.y));
        if (f.x == probe_x_ && f.y == probe_y_) {
          // Visible: the colour passes the depth test; a value is kept by an F-buffer always,
          // by a texture if the fragment passes the test there.
          const bool kept = last ? passes_depth(b, f, opt_.storage == Storage::RenderToTexture ? p : 0)
                                 : opt_.storage == Storage::FBuffer || passes_depth(b, f, p);
          c->probed.push_back({p, layer_of.count(index) ? layer_of.at(index) : 0, f.depth, {v[0], v[1], v[2], v[3]}, kept});
        }
      }
      if (!last) {
        // An F-buffer keeps every fragment's value; a texture keeps the last one that passed
        // (at any of its samples).
        if (opt_.storage != Storage::FBuffer) {
          const unsigned passing = depth_mask(b, f, p);
          if (!passing) continue;
          if (p == 0 && b.opaque[f.triangle]) write_depth(b, f, passing);
        }
        for (int k = 0; k < outputs; ++k) save(k, j, f, index);
        continue;
      }
      const unsigned passing = depth_mask(b, f, opt_.storage == Storage::RenderToTexture ? p : 0);
      if (!passing) continue;
      for (int k = 0; k < outputs; ++k)  // the shader's other outputs, where its colour is drawn
        if (k != colour) save(k, j, f, index);
      if (b.opaque[f.triangle] && (opt_.storage != Storage::RenderToTexture || p == 0)) write_depth(b, f, passing);
      // The colour goes to each sample that passed (one shading per pixel, as multisampling does).
      const std::size_t first_sample = (static_cast<std::size_t>(f.y) * target_.width + f.x) * target_.samples;
      const float keep = 1 - v[3];
      for (int k = 0; k < target_.samples; ++k) {
        if (!(passing & (1u << k))) continue;
        float* dst = target_.colour.data() + (first_sample + static_cast<std::size_t>(k)) * 4;
        for (int comp = 0; comp < 4; ++comp) dst[comp] = v[comp] + keep * dst[comp];
      }
    }
    return written;
  }

  void run_pass(const Batch& b, int p, std::uint32_t begin, std::uint32_t end, std::size_t rasterized) {
    const FragmentShader& sh = *b.shader;
    ++stats_.geometry_submissions;
    stats_.fragments_rasterized += static_cast<long>(rasterized);
    const int k = sh.interpolants();
    const std::vector<int>& restores = sh.restores(p);
    // After the first pass of a render-to-texture batch the depth buffer is final: the later
    // passes shade only the fragments that pass (early depth test), as hardware does.
    const bool early = opt_.storage == Storage::RenderToTexture && p > 0;
    const bool whole = tile_raster() || (begin == 0 && end == b.fragments.size());
    // The interpolant components the pass reads (interpolant * 4 + component), and the
    // derivative interpolants among them.
    std::vector<int> components, derivatives;
    for (int i = 0; i < k; ++i) {
      const unsigned mask = sh.interpolant_mask(p, i);
      if (mask && (sh.screen_derivatives(i) || sh.screen_difference(i))) derivatives.push_back(i);
      else
        for (int c = 0; c < 4; ++c)
          if (mask & (1u << c)) components.push_back(i * 4 + c);
    }
    std::atomic<long> shaded{0}, written{0}, rasterized_in_tiles{0};
    const Projection proj = projection();
    const float focal = proj.focal();
    parallel_for(tiles_x() * tiles_y(), threads_, opt_.cancel, [&](int t) {
      // The tile's fragments: frags[i] for i in [first, last_one).
      thread_local std::vector<Fragment> local;
      thread_local std::vector<std::uint32_t> order, kept;
      const Fragment* frags = b.fragments.data();
      const std::uint32_t* first = b.by_tile.data() + b.tile_start[static_cast<std::size_t>(t)];
      const std::uint32_t* last_one = b.by_tile.data() + b.tile_start[static_cast<std::size_t>(t) + 1];
      std::map<std::uint32_t, int> layers;  // (tiles rasterized here) fragment -> its rank at the probed pixel
      if (tile_raster()) {
        // Rasterized here: the tile's triangles, in order, clipped to the tile.
        local.clear();
        const PixelRect rect = tile_rect(t);
        for (const std::uint32_t* tri = first; tri != last_one; ++tri) rasterize(b.triangles[*tri], *tri, proj, rect, local);
        rasterized_in_tiles += static_cast<long>(local.size());
        order.resize(local.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        frags = local.data();
        first = order.data();
        last_one = order.data() + order.size();
        if (opt_.capture)
          for (std::uint32_t i = 0; i < local.size(); ++i)
            if (local[i].x == probe_x_ && local[i].y == probe_y_) layers[i] = static_cast<int>(layers.size());
      } else if (!whole) {  // this tile's fragments in [begin, end): a sub-range of its sorted list
        first = std::lower_bound(first, last_one, begin);
        last_one = std::lower_bound(first, last_one, end);
      }
      const std::map<std::uint32_t, int>& layer_of = tile_raster() ? layers : probe_layer_;
      if (early) {
        kept.clear();
        for (const std::uint32_t* i = first; i != last_one; ++i)
          if (passes_depth(b, frags[*i], p)) kept.push_back(*i);
        first = kept.data();
        last_one = kept.data() + kept.size();
      }
      const std::size_t count = static_cast<std::size_t>(last_one - first);
      if (count == 0) return;
      prefetch_tile(t);
      // Each thread's batch arrays, kept from tile to tile (and render to render): they grow but
      // are never cleared, as every lane a pass reads is written first.
      thread_local std::vector<float> in, rest, out, scratch;
      thread_local std::vector<const float*> in_ptr, rest_ptr;
      grow(in, static_cast<std::size_t>(k) * 4 * kBatch);
      grow(rest, restores.size() * 4 * kBatch);
      grow(out, static_cast<std::size_t>(sh.outputs(p)) * 4 * kBatch);
      in_ptr.resize(static_cast<std::size_t>(k));
      rest_ptr.resize(restores.size());
      for (int i = 0; i < k; ++i) in_ptr[static_cast<std::size_t>(i)] = in.data() + static_cast<std::size_t>(i) * 4 * kBatch;
      for (std::size_t r = 0; r < restores.size(); ++r) rest_ptr[r] = rest.data() + r * 4 * kBatch;
      long local_written = 0;
      alignas(64) float w0[kBatch], w1[kBatch], w2[kBatch];
      for (std::size_t at = 0; at < count; at += kBatch) {
        const int n = static_cast<int>(std::min<std::size_t>(kBatch, count - at));
        const std::uint32_t* list = first + at;
        for (int j = 0; j < n; ++j) {
          const Fragment& f = frags[list[j]];
          w1[j] = f.b1;
          w2[j] = f.b2;
          w0[j] = 1 - f.b1 - f.b2;
        }
        // Interpolants, a run of fragments of one triangle at a time: v0 b0 + v1 b1 + v2 b2.
        for (int j = 0; j < n;) {
          const std::uint32_t tri = frags[list[j]].triangle;
          int e = j + 1;
          while (e < n && frags[list[e]].triangle == tri) ++e;
          const float* c = b.corners.data() + static_cast<std::size_t>(tri) * 3 * k * 4;
          for (int i : components) interpolate(in.data() + static_cast<std::size_t>(i) * kBatch, j, e, c[i], c[k * 4 + i], c[2 * k * 4 + i], w0, w1, w2);
          if (!derivatives.empty()) screen_derivatives(b, frags, tri, list + j, e - j, derivatives, c, k, in.data(), j, focal);
          j = e;
        }
        for (int j = 0; j < n; ++j) {
          const std::size_t s = slot(frags[list[j]], list[j], begin);
          for (std::size_t r = 0; r < restores.size(); ++r) {
            const float* src = buffers_[static_cast<std::size_t>(restores[r])].data() + s * 4;
            for (int comp = 0; comp < 4; ++comp) rest[r * 4 * kBatch + static_cast<std::size_t>(comp) * kBatch + j] = src[comp];
          }
        }
        sh.run(p, n, in_ptr.data(), rest_ptr.data(), out.data(), scratch);
        // In order: the depth test, then the intermediate value or the colour.
        local_written += store_results(b, p, frags, list, n, out.data(), begin, layer_of);
      }
      shaded += static_cast<long>(count);
      written += local_written;
    });
    stats_.fragments_rasterized += rasterized_in_tiles;
    stats_.fragments_shaded += shaded;
    stats_.bytes_written += written * 16;
    stats_.bytes_read += shaded * 16 * static_cast<long>(restores.size());
  }

  // The fragment's covered samples that pass the depth test. Opaque fragments: the nearest so far
  // in a first pass, exactly the nearest in later passes of render-to-texture (the depth buffer is
  // final then). Transparent ones: in front of what is drawn.
  unsigned depth_mask(const Batch& b, const Fragment& f, int pass) const {
    const bool equal = b.opaque[f.triangle] && pass > 0;
    const std::size_t first = (static_cast<std::size_t>(f.y) * target_.width + f.x) * target_.samples;
    if (target_.samples == 1) {
      const float d = target_.depth[first];
      return (equal ? f.depth == d : f.depth < d) ? 1u : 0u;
    }
    unsigned mask = 0;
    for (int k = 0; k < target_.samples; ++k) {
      if (!(f.coverage & (1u << k))) continue;
      const float z = sample_depth(b, f, k), d = target_.depth[first + static_cast<std::size_t>(k)];
      if (equal ? z == d : z < d) mask |= 1u << k;
    }
    return mask;
  }
  bool passes_depth(const Batch& b, const Fragment& f, int pass) const { return depth_mask(b, f, pass) != 0; }
  void write_depth(const Batch& b, const Fragment& f, unsigned mask) {
    const std::size_t first = (static_cast<std::size_t>(f.y) * target_.width + f.x) * target_.samples;
    if (target_.samples == 1) {
      target_.depth[first] = f.depth;
      return;
    }
    for (int k = 0; k < target_.samples; ++k)
      if (mask & (1u << k)) target_.depth[first + static_cast<std::size_t>(k)] = sample_depth(b, f, k);
  }
  // Camera z at sample k of the fragment's pixel: 1/z is linear on screen, over the triangle's plane.
  float sample_depth(const Batch& b, const Fragment& f, int k) const {
    const std::array<float, 3>& plane = b.inverse_depth[f.triangle];
    const auto& at = pattern_[static_cast<std::size_t>(k)];
    return 1.0f / (plane[0] * (static_cast<float>(f.x) + at[0]) + plane[1] * (static_cast<float>(f.y) + at[1]) + plane[2]);
  }

  const RenderOptions& opt_;
  Target& target_;
  RenderStats& stats_;
  int threads_;
  std::vector<std::array<float, 2>> pattern_ = sample_pattern(target_.samples);
  std::map<std::uint32_t, int> probe_layer_;  // fragment index -> its rank at the probed pixel
};

}  // namespace

const char* to_string(Storage s) {
  switch (s) {
    case Storage::SinglePass: return "single";
    case Storage::RenderToTexture: return "rtt";
    case Storage::FBuffer: return "fbuffer";
  }
  return "?";
}

const char* to_string(Overflow o) { return o == Overflow::Restart ? "restart" : "window"; }

std::optional<Image> render(const Scene& scene, const std::vector<const FragmentShader*>& shaders,
                            const RenderOptions& options, RenderStats* stats_out, std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  const int ss = std::clamp(options.supersample, 1, 8);
  const int width = (options.width > 0 ? options.width : scene.width), height = (options.height > 0 ? options.height : scene.height);
  if (static_cast<long>(width) * ss > 65535 || static_cast<long>(height) * ss > 65535 || width < 1 || height < 1) {
    if (error) *error = fmt::format("a {}x{} image with {}x{} samples per pixel is larger than the renderer's 65535 samples a side", width, height, ss, ss);
    return std::nullopt;
  }
  const int msaa = options.multisample;
  if (sample_pattern(msaa).empty()) {
    if (error) *error = fmt::format("{} samples per pixel: multisampling takes 1, 2, 4 or 8", msaa);
    return std::nullopt;
  }
  Target target{width * ss, height * ss, msaa, {}, {}};
  const std::size_t samples = static_cast<std::size_t>(target.width) * target.height * static_cast<std::size_t>(msaa);
  const int threads = options.threads > 0 ? options.threads : hardware_threads();
  // The cleared frame buffer, filled on the threads a block of rows each.
  reserve_large(target.colour, samples * 4);
  target.colour.resize(samples * 4);
  Arena& mem = arena();
  target.depth.swap(mem.depth);
  target.depth.clear();
  reserve_large(target.depth, samples);
  target.depth.resize(samples);
  const std::size_t row = static_cast<std::size_t>(target.width) * static_cast<std::size_t>(msaa);
  parallel_for((target.height + 63) / 64, threads, nullptr, [&](int block) {
    const std::size_t first = static_cast<std::size_t>(block) * 64 * row, last = std::min(samples, first + 64 * row);
    for (std::size_t i = first; i < last; ++i) std::copy(scene.background.begin(), scene.background.end(), target.colour.begin() + static_cast<std::ptrdiff_t>(i * 4));
    std::fill(target.depth.begin() + static_cast<std::ptrdiff_t>(first), target.depth.begin() + static_cast<std::ptrdiff_t>(last),
              std::numeric_limits<float>::infinity());
  });

  RenderStats stats;
  Renderer r(options, target, stats, threads);
  r.buffers_.swap(mem.buffers);
  struct GiveBack {  // the buffers go back to the arena however the render ends
    Arena& mem;
    Target& target;
    Renderer& r;
    ~GiveBack() {
      mem.depth.swap(target.depth);
      mem.buffers.swap(r.buffers_);
      keep_if_small(mem.depth);
      for (auto& b : mem.buffers) keep_if_small(b);
    }
  } give_back{mem, target, r};
  r.fov_ = scene.fov_degrees;
  if (options.capture) {
    options.capture->passes.clear();
    options.capture->probed.clear();
    if (options.capture->probe_x >= 0 && options.capture->probe_y >= 0) {
      r.probe_x_ = options.capture->probe_x * ss;
      r.probe_y_ = options.capture->probe_y * ss;
    }
  }
  for (DrawBatch& d : draw_list(scene, shaders, threads)) {
    Batch b;
    static_cast<DrawBatch&>(b) = std::move(d);
    b.fragments.swap(mem.fragments);
    b.fragments.clear();
    b.by_tile.swap(mem.by_tile);
    const bool drawn = r.draw(b, error);
    mem.fragments.swap(b.fragments);
    mem.by_tile.swap(b.by_tile);
    keep_if_small(mem.fragments);
    keep_if_small(mem.by_tile);
    for (auto& part : mem.parts) keep_if_small(part);
    if (!drawn) return std::nullopt;
    if (r.cancelled()) {
      if (error) *error = "the render was cancelled";
      return std::nullopt;
    }
  }

  Image out;
  out.width = width;
  out.height = height;
  if (msaa > 1) {  // resolve: each pixel the mean of its samples
    const std::size_t pixels = static_cast<std::size_t>(target.width) * target.height;
    std::vector<float> resolved(pixels * 4);
    const float norm = 1.0f / static_cast<float>(msaa);
    for (std::size_t i = 0; i < pixels; ++i)
      for (std::size_t c = 0; c < 4; ++c) {
        float sum = 0;
        for (std::size_t k = 0; k < static_cast<std::size_t>(msaa); ++k) sum += target.colour[(i * static_cast<std::size_t>(msaa) + k) * 4 + c];
        resolved[i * 4 + c] = sum * norm;
      }
    target.colour = std::move(resolved);
  }
  if (ss == 1) {
    out.rgba = std::move(target.colour);
  } else {
    out.rgba.resize(static_cast<std::size_t>(width) * height * 4);
    const float norm = 1.0f / static_cast<float>(ss * ss);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < 4; ++c) {
          float sum = 0;
          for (int sy = 0; sy < ss; ++sy)
            for (int sx = 0; sx < ss; ++sx)
              sum += target.colour[(static_cast<std::size_t>(y * ss + sy) * target.width + (x * ss + sx)) * 4 + c];
          out.at(x, y)[c] = sum * norm;
        }
  }
  stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (stats_out) *stats_out = stats;
  return out;
}

}  // namespace passlab::sim
