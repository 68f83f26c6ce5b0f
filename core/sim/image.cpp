// SPDX-License-Identifier: GPL-3.0-or-later
// RGBA float images and their PNG files, through libpng.
//
// libpng reports an error by calling an error function that must not return; ours records the
// message and longjmps back to the setjmp in `guarded`. A longjmp skips destructors, so each
// libpng call that can fail runs inside `guarded` from a lambda that creates no object with a
// destructor, while the objects that own libpng's structures, the file and the pixel buffers live
// in the frames above, which the jump never crosses.
#include "core/sim/image.h"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

namespace passlab::sim {
namespace {

namespace fs = std::filesystem;

// Larger images are broken or hostile files: one this size already takes 4 GiB as floats.
constexpr png_uint_32 kMaxReadSide = 16384;
// Set explicitly so that the bytes written do not depend on libpng's default.
constexpr int kCompressionLevel = 6;

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, CloseFile>;

// libpng's error message, in a fixed buffer because the error function runs inside libpng just
// before a longjmp and must not allocate.
struct PngError {
  char message[256] = "unknown libpng error";
};

[[noreturn]] void on_png_error(png_structp png, png_const_charp message) {
  auto* error = static_cast<PngError*>(png_get_error_ptr(png));
  std::snprintf(error->message, sizeof error->message, "%s", message);
  png_longjmp(png, 1);
}

// Warnings are about what libpng ignores anyway (a bad ancillary chunk, an odd colour profile).
void on_png_warning(png_structp, png_const_charp) {}

// File input and output for libpng, in place of its own, which say only "Read Error" for a
// cut-off file and "Write Error" for a full disk.
void read_from_file(png_structp png, png_bytep data, std::size_t length) {
  auto* file = static_cast<std::FILE*>(png_get_io_ptr(png));
  if (std::fread(data, 1, length, file) == length) return;
  png_error(png, std::ferror(file) ? std::strerror(errno) : "the file ends early (truncated)");
}

void write_to_file(png_structp png, png_bytep data, std::size_t length) {
  if (std::fwrite(data, 1, length, static_cast<std::FILE*>(png_get_io_ptr(png))) != length)
    png_error(png, std::strerror(errno));
}

void flush_file(png_structp png) {
  if (std::fflush(static_cast<std::FILE*>(png_get_io_ptr(png))) != 0) png_error(png, std::strerror(errno));
}

// Runs `step` and says whether it finished without a libpng error. `step` must hold no object
// with a destructor (see the top of the file).
template <class Step>
bool guarded(png_structp png, const Step& step) {
  if (setjmp(png_jmpbuf(png))) return false;
  step();
  return true;
}

// Owners of libpng's structures; `info` is null when either could not be allocated.
struct PngWriter {
  PngError error;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  PngWriter() = default;
  PngWriter(const PngWriter&) = delete;
  PngWriter& operator=(const PngWriter&) = delete;
  ~PngWriter() { png_destroy_write_struct(&png, &info); }
};

struct PngReader {
  PngError error;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  PngReader() = default;
  PngReader(const PngReader&) = delete;
  PngReader& operator=(const PngReader&) = delete;
  ~PngReader() { png_destroy_read_struct(&png, &info, nullptr); }
};

// Clamped to [0, 1] and rounded to nearest; NaN (a shader's 0/0) becomes 0.
png_byte to_byte(float value) {
  if (!(value > 0)) return 0;
  if (value >= 1) return 255;
  return static_cast<png_byte>(value * 255.0f + 0.5f);
}

std::vector<png_bytep> row_pointers(std::vector<png_byte>& bytes, std::size_t width, std::size_t height) {
  std::vector<png_bytep> rows(height);
  for (std::size_t y = 0; y < height; ++y) rows[y] = bytes.data() + y * width * 4;
  return rows;
}

// Asks libpng to turn every kind of PNG into 8-bit RGBA rows.
void request_rgba8(png_structp png, png_infop info) {
  const int color_type = png_get_color_type(png, info);
  png_set_expand(png);    // palette to RGB, grey below 8 bits to 8, tRNS to an alpha channel
  png_set_scale_16(png);  // 16 to 8 bits, rounded rather than truncated
  png_set_gray_to_rgb(png);
  if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling(png);
}

void remove_quietly(const std::string& path) {
  std::error_code ignored;
  fs::remove(path, ignored);
}

}  // namespace

Image::Image(int w, int h, std::array<float, 4> fill) : width(w), height(h) {
  if (w < 0 || h < 0) throw std::invalid_argument(fmt::format("Image: negative size {} x {}", w, h));
  rgba.reserve(static_cast<std::size_t>(w) * h * 4);
  for (std::size_t i = 0, n = static_cast<std::size_t>(w) * h; i < n; ++i)
    rgba.insert(rgba.end(), fill.begin(), fill.end());
}

bool write_png(const std::string& path, const Image& image, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = fmt::format("cannot write '{}': {}", path, why);
    return false;
  };
  if (image.width <= 0 || image.height <= 0)
    return fail(fmt::format("the image is empty ({} x {})", image.width, image.height));
  const std::size_t width = image.width, height = image.height;
  if (image.rgba.size() != width * height * 4)
    return fail(fmt::format("the image has {} floats for {} x {} pixels", image.rgba.size(), width, height));

  std::vector<png_byte> bytes(image.rgba.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = to_byte(image.rgba[i]);
  std::vector<png_bytep> rows = row_pointers(bytes, width, height);

  // A reader of `path` sees the old file or the new one, never half of one.
  const std::string temp = path + ".tmp";
  FilePtr file(std::fopen(temp.c_str(), "wb"));
  if (!file) return fail(fmt::format("cannot create '{}': {}", temp, std::strerror(errno)));
  PngWriter writer;
  if (!writer.info) {
    file.reset();
    remove_quietly(temp);
    return fail("out of memory");
  }
  // No tIME or gAMA chunk is written, so equal images give equal files.
  const bool encoded = guarded(writer.png, [&] {
    png_set_write_fn(writer.png, file.get(), write_to_file, flush_file);
    png_set_compression_level(writer.png, kCompressionLevel);
    png_set_IHDR(writer.png, writer.info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(writer.png, writer.info);
    png_write_image(writer.png, rows.data());
    png_write_end(writer.png, nullptr);
  });
  // fclose flushes, so a full disk may only show here.
  const bool closed = std::fclose(file.release()) == 0;
  const std::string close_error = closed ? "" : std::strerror(errno);
  if (!encoded || !closed) {
    remove_quietly(temp);
    return fail(encoded ? close_error : writer.error.message);
  }
  std::error_code renamed;
  fs::rename(temp, path, renamed);
  if (renamed) {
    remove_quietly(temp);
    return fail(fmt::format("cannot rename '{}' to it: {}", temp, renamed.message()));
  }
  return true;
}

std::optional<Image> read_png(const std::string& path, lang::Diagnostics* problems) {
  auto fail = [&](std::string message) -> std::optional<Image> {
    if (problems) problems->error("image", lang::file_span(problems->sources().add(path, "")), std::move(message));
    return std::nullopt;
  };
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) return fail(fmt::format("cannot open the file: {}", std::strerror(errno)));
  png_byte signature[8];
  const std::size_t got = std::fread(signature, 1, sizeof signature, file.get());
  if (got != sizeof signature && std::ferror(file.get()))
    return fail(fmt::format("cannot read the file: {}", std::strerror(errno)));
  if (got != sizeof signature || png_sig_cmp(signature, 0, sizeof signature) != 0) return fail("not a PNG file");

  PngReader reader;
  if (!reader.info) return fail("out of memory");
  auto broken = [&] { return fail(fmt::format("bad PNG file: {}", reader.error.message)); };
  png_uint_32 width = 0, height = 0;
  if (!guarded(reader.png, [&] {
        png_set_read_fn(reader.png, file.get(), read_from_file);
        png_set_sig_bytes(reader.png, sizeof signature);
        png_read_info(reader.png, reader.info);
        width = png_get_image_width(reader.png, reader.info);
        height = png_get_image_height(reader.png, reader.info);
      }))
    return broken();
  if (width > kMaxReadSide || height > kMaxReadSide)
    return fail(fmt::format("the image is {} x {} pixels; the limit is {} x {}", width, height, kMaxReadSide,
                            kMaxReadSide));

  std::vector<png_byte> bytes(static_cast<std::size_t>(width) * height * 4);
  std::vector<png_bytep> rows = row_pointers(bytes, width, height);
  if (!guarded(reader.png, [&] {
        request_rgba8(reader.png, reader.info);
        png_read_update_info(reader.png, reader.info);
        if (png_get_rowbytes(reader.png, reader.info) != static_cast<std::size_t>(width) * 4)
          png_error(reader.png, "the rows did not convert to 8-bit RGBA");
        png_read_image(reader.png, rows.data());
        png_read_end(reader.png, nullptr);  // reads up to IEND, so a cut-off file is noticed
      }))
    return broken();

  Image image(static_cast<int>(width), static_cast<int>(height));
  for (std::size_t i = 0; i < bytes.size(); ++i) image.rgba[i] = bytes[i] / 255.0f;
  return image;
}

}  // namespace passlab::sim
