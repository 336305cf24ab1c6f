// fs-at: the *at() system calls SearchFiles needs, for Node through N-API (NAPI_VERSION 8, C only,
// no V8 API, so one binary serves every Node release with that N-API version).
//
// Hand-written because Node's fs has no openat/fstatat/getdents on a directory descriptor (every
// verified open goes through /proc/self/fd/N/NAME, a path lookup through procfs per call) and no
// maintained npm package exposes them. Built by scripts/build-native.mjs with the system C
// compiler; src/sandbox/native/fs-at.ts loads it and falls back to the JavaScript path without it.
//
// Exports:
//   readFileAt(dirFd, name, buffer, limit, info, needles, allowHardLinks) -> length >= 0, or a negative code (below)
//   readBatch(dirFds, names, from, buffer, limit, needles, results, folderPaths, allowHardLinks) -> index of the first file not read
// (the two content reads: the rules of src/sandbox/content/open-content.ts, in C; called only from
// src/sandbox/content/native-content.ts)
//   listDir(dirFd) -> string of entries "<kind><name>\0" (kind: d folder, f file, o other), or null
//   openDirAt(parentFd, name) -> a read-only descriptor of the sub-folder `name`, or -errno
//   fdPath(fd) -> the kernel's path of a descriptor (readlink /proc/self/fd/N), or null
//   folderBarrier(path) -> true once no unlink, link or rename is under way in the folder at
//     `path` (see folder_barrier), false when it cannot be opened
//   sameEntryAndFolder(named, held) -> 1 / 0: the two paths' entries are the same inode in the same
//     folder (connectable file handles), -1 when the filesystem cannot tell
//   holdOnFolderMount(dirFd, name) -> an O_PATH descriptor of the entry `name` when it is on the
//     folder's own mount, or -errno: -EXDEV when a filesystem is mounted on that name
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#else
// C library headers older than Linux 5.6's: openat2's argument and flags as the kernel has them.
struct open_how {
  uint64_t flags, mode, resolve;
};
#define RESOLVE_NO_XDEV 0x01
#define RESOLVE_BENEATH 0x08
#endif

#ifndef SYS_openat2
#define SYS_openat2 437 // the same number on every architecture (added after the tables were unified)
#endif

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0) // linux/fs.h; glibc < 2.28 does not define it
#endif

// Codes readFileAt returns; -1..-6 are the match job's outcomeCodes indexes, negated.
#define CODE_BINARY -1
#define CODE_TOO_LARGE -2
#define CODE_NOT_REGULAR -3
#define CODE_HARD_LINKED -4
#define CODE_OUTSIDE -5
#define CODE_UNREADABLE -6
#define CODE_NEED_BUFFER -100
#define CODE_NO_MATCH -101

#define FIRST_READ_BYTES (64 * 1024)
#define SAMPLE_BYTES (8 * 1024)

// name_arg copies a JS string argument into `out` (cap bytes); false if it is not a string, too
// long, empty, or holds "/" or NUL (a name, not a path: it must stay one entry of the folder).
// The full length is asked first: napi_get_value_string_utf8 stops before a character that does
// not fit, so a longer name could otherwise come back cut short to a shorter, existing one.
static int name_arg(napi_env env, napi_value value, char* out, size_t cap) {
  size_t full = 0, len = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &full) != napi_ok) return 0;
  if (full == 0 || full >= cap - 1) return 0;
  if (napi_get_value_string_utf8(env, value, out, cap, &len) != napi_ok || len != full) return 0;
  if (memchr(out, '/', len) != NULL || strlen(out) != len) return 0;
  if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0) return 0;
  return 1;
}

// int_arg reads a descriptor or index: a JS number that is a whole int32 (napi_get_value_int32
// alone would take NaN as 0, 3.5 as 3 and 2^32 + 3 as 3: another descriptor than the caller meant).
static int int_arg(napi_env env, napi_value value, int32_t* out) {
  double d;
  if (napi_get_value_double(env, value, &d) != napi_ok || !(d >= INT32_MIN && d <= INT32_MAX) || d != (double)(int32_t)d) return 0;
  *out = (int32_t)d;
  return 1;
}

// fd_name_args reads the (folderFd, name) arguments openDirAt and holdOnFolderMount take: 1 when
// both are good, 0 after throwing a TypeError naming `usage` (no descriptor, or not two
// arguments), -1 for a name that is not one entry (the caller answers -EINVAL).
static int fd_name_args(napi_env env, napi_callback_info cb, const char* usage, int32_t* fd, char* name, size_t cap) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 2 || !int_arg(env, argv[0], fd) || *fd < 0) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  return name_arg(env, argv[1], name, cap) ? 1 : -1;
}

// true_arg is 1 for the boolean true only: anything else (false, missing, another type) is 0, so
// a caller that does not say hard links are allowed gets them refused.
static int true_arg(napi_env env, napi_value value) {
  bool b = false;
  napi_valuetype kind;
  if (napi_typeof(env, value, &kind) != napi_ok || kind != napi_boolean) return 0;
  return napi_get_value_bool(env, value, &b) == napi_ok && b;
}

static napi_value make_int(napi_env env, int32_t v) {
  napi_value r;
  napi_create_int32(env, v, &r);
  return r;
}

static napi_value make_null(napi_env env) {
  napi_value r;
  napi_get_null(env, &r);
  return r;
}

// proc_fds is /proc/self/fd held (O_PATH), opened once per process: the reopen and the readlink
// through it look up one component ("N") instead of four ("/proc/self/fd/N"), ~1 us less each.
// The kernel resolves its entries against this process's descriptor table at each lookup.
// Its device and inode are kept: proc_fds_check, at the start of each call from JavaScript, makes
// sure the number still names that folder (code elsewhere closing it by mistake and the number
// being reused for another folder would otherwise make "N" an entry of that folder); if not, the
// full paths are used from then on.
static int proc_fds = -1;
static dev_t proc_fds_dev;
static ino_t proc_fds_ino;
static pthread_once_t proc_fds_once = PTHREAD_ONCE_INIT;

static void open_proc_fds(void) {
  int fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0) {
    proc_fds_dev = st.st_dev;
    proc_fds_ino = st.st_ino;
    proc_fds = fd;
  } else if (fd >= 0) {
    close(fd);
  }
}

static void proc_fds_check(void) {
  pthread_once(&proc_fds_once, open_proc_fds);
  int fd = __atomic_load_n(&proc_fds, __ATOMIC_ACQUIRE);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != proc_fds_dev || st.st_ino != proc_fds_ino)) {
    __atomic_store_n(&proc_fds, -1, __ATOMIC_RELEASE); // not ours any more: never used (nor closed) again
  }
}

// proc_fd_dir returns the held /proc/self/fd and sets `name` to FD's entry in it (AT_FDCWD and
// the full path when /proc/self/fd is not held).
static int proc_fd_dir(int fd, char* name, size_t cap) {
  int dir = __atomic_load_n(&proc_fds, __ATOMIC_ACQUIRE);
  if (dir < 0) {
    snprintf(name, cap, "/proc/self/fd/%d", fd);
    return AT_FDCWD;
  }
  // The decimal digits by hand: snprintf (twice a file) was ~0.6% of the match workers' time.
  char digits[16];
  size_t n = 0;
  unsigned int v = (unsigned int)fd;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0 && n < sizeof digits);
  if (fd < 0 || n + 1 > cap) {
    snprintf(name, cap, "%d", fd);
    return dir;
  }
  for (size_t i = 0; i < n; i++) name[i] = digits[n - 1 - i];
  name[n] = 0;
  return dir;
}

// proc_link reads /proc/self/fd/FD into out; its length, or -1.
static ssize_t proc_link(int fd, char* out, size_t cap) {
  char path[64];
  int dir = proc_fd_dir(fd, path, sizeof path);
  ssize_t n = readlinkat(dir, path, out, cap - 1);
  if (n < 0 || (size_t)n >= cap - 1) return -1;
  out[n] = 0;
  return n;
}

// find_text: the first occurrence of needle in hay, as memmem, but several times faster on text
// with AVX2 (x86-64 CPUs since 2013): the "packed pair" filter ripgrep's memchr crate uses,
// hand-written because glibc's memmem is not vectorized (it was ~8% of a literal search's CPU)
// and there is no C library for it on Debian. Two bytes of the needle, the rarest in source
// code and text (byte_rank), are compared at their offsets for 32 positions at once; only the
// positions where both agree are checked with memcmp. Same answer as memmem (the first match,
// or NULL); memmem itself without AVX2, off x86-64 and for haystack ends shorter than a vector.
static const uint8_t byte_rank[256] = {
      0,   1,   2,   3,   4,   5,   6,   7,   8, 185, 245,   9,  10, 162,  11,  12,
     13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  52,  24,  25,  26,  27,
    255, 157, 231, 152, 154, 107, 166, 194, 222, 223, 213, 161, 234, 193, 238, 239,
    205, 206, 202, 188, 183, 176, 180, 164, 168, 167, 220, 229, 169, 226, 182, 171,
    165, 243, 201, 232, 210, 224, 191, 196, 175, 221, 160, 187, 208, 203, 207, 217,
    204, 184, 212, 218, 219, 195, 181, 178, 141, 179, 153, 199, 200, 197,  87, 230,
    198, 250, 227, 244, 241, 254, 233, 237, 236, 251, 192, 209, 246, 235, 248, 252,
    242, 190, 249, 247, 253, 240, 225, 216, 211, 228, 177, 215, 174, 214,  77,  54,
    155, 172, 170, 159, 124, 111,  86, 117, 137, 106,  92, 136, 139, 115,  76, 128,
     98,  79,  85,  82, 126, 119, 102, 103,  80, 113, 105,  90,  99,  81, 108, 131,
     88, 121,  84, 120, 125,  95,  91, 138, 130,  94, 110, 104,  75, 109, 133, 123,
    147, 144, 132, 116, 114, 146,  96, 101, 156, 122, 134, 135, 148, 145, 151, 140,
     28,  29,  97, 158, 142,  89,  59,  30,  55,  62,  31,  64,  56,  53,  73,  68,
    189, 173,  63,  58,  57,  65,  60,  66,  78,  72,  67,  69,  32,  33,  34,  35,
    150,  71, 127, 186, 112, 163, 149, 143, 129, 118,  70,  93, 100,  74,  36,  83,
     61,  37,  38,  39,  40,  41,  42,  43,  44,  45,  46,  47,  48,  49,  50,  51,
};

// needle_pair picks the offsets of the needle's two rarest bytes (different offsets; len >= 2).
static void needle_pair(const uint8_t* needle, size_t len, size_t* first, size_t* second) {
  size_t a = 0, b = 1;
  if (byte_rank[needle[b]] < byte_rank[needle[a]]) {
    a = 1;
    b = 0;
  }
  for (size_t i = 2; i < len; i++) {
    if (byte_rank[needle[i]] < byte_rank[needle[a]]) {
      b = a;
      a = i;
    } else if (byte_rank[needle[i]] < byte_rank[needle[b]]) {
      b = i;
    }
  }
  *first = a;
  *second = b;
}

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2"))) static const uint8_t* find_text_avx2(const uint8_t* hay, size_t n, const uint8_t* needle, size_t len) {
  size_t i1, i2;
  needle_pair(needle, len, &i1, &i2);
  const __m256i b1 = _mm256_set1_epi8((char)needle[i1]);
  const __m256i b2 = _mm256_set1_epi8((char)needle[i2]);
  size_t at = 0;
  // Positions at..at+31 are candidates while the vector loads at at + i1 and at + i2 stay inside
  // hay: at + 31 + len - 1 < n.
  for (; n >= len + 31 && at <= n - len - 31; at += 32) {
    __m256i v1 = _mm256_loadu_si256((const __m256i*)(hay + at + i1));
    __m256i v2 = _mm256_loadu_si256((const __m256i*)(hay + at + i2));
    uint32_t mask = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(v1, b1), _mm256_cmpeq_epi8(v2, b2)));
    while (mask != 0) {
      size_t pos = at + (size_t)__builtin_ctz(mask);
      if (memcmp(hay + pos, needle, len) == 0) return hay + pos;
      mask &= mask - 1;
    }
  }
  return at < n ? memmem(hay + at, n - at, needle, len) : NULL;
}

static int has_avx2 = -1;

// avx2_ok says whether this CPU has AVX2 (asked once).
static int avx2_ok(void) {
  int avx2 = __atomic_load_n(&has_avx2, __ATOMIC_RELAXED);
  if (avx2 < 0) {
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    __atomic_store_n(&has_avx2, avx2, __ATOMIC_RELAXED);
  }
  return avx2;
}
#endif

static const uint8_t* find_text(const uint8_t* hay, size_t n, const uint8_t* needle, size_t len) {
  if (len == 0) return hay;
  if (len > n) return NULL;
  if (len == 1) return memchr(hay, needle[0], n);
#if defined(__x86_64__)
  if (avx2_ok()) return find_text_avx2(hay, n, needle, len);
#endif
  return memmem(hay, n, needle, len);
}

// folder is what read_at needs of the folder its files are in, opened once for a run of files of
// the same folder: its kernel path (each file's own path must be that path + "/" + its name) and
// a descriptor open for reading, for the barrier below.
struct folder {
  int dirfd; // the held folder, -1 when none is open
  int readable; // the same folder opened for reading (getdents), -1 if it could not be
  int owned; // readable was opened here (and is closed here), not dirfd itself
  // How `path` was had: 1 given by the caller (the walk's verified path, see readBatch), 0 read
  // from /proc (proc_link of dirfd), -1 not yet.
  int given;
  size_t len;
  char path[PATH_MAX + 16]; // ends with "/"
};

static void folder_close(struct folder* f) {
  if (f->readable >= 0 && f->owned) close(f->readable);
  f->readable = -1;
  f->owned = 0;
  f->dirfd = -1;
  f->given = -1;
}

// readable_dir says whether `fd` is itself open for reading (not O_PATH): the walk opens the
// folders below the start that way (openDirAt), the start folder is opened that way too
// (HeldDirectory), and getdents works on it directly.
static int readable_dir(int fd) {
  int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_PATH) == 0 && (flags & O_ACCMODE) != O_WRONLY;
}

// folder_open makes `f` the folder `dirfd` (nothing to do when it already is); false if it cannot
// be read or named, and then none of its files is read. Its path is `given` (the walk's verified
// path of dirfd, see readBatch: given_len bytes, absolute) when not NULL, else the kernel's
// (proc_link of dirfd).
// The barrier descriptor is `dirfd` itself when it is open for reading (one fcntl instead of an
// openat of "." and a close per run of files): the barrier needs a descriptor of the folder's
// inode, whose lock getdents takes, and dirfd is that inode by definition (the "." opened
// relative to it was the same inode). Its file position is shared with the walk, which listed
// the folder before handing any of its files over; a getdents that reads nothing moves no
// position, and getdents on one open file is serialized by the kernel (f_pos_lock).
static int folder_open(struct folder* f, int dirfd, const char* given, size_t given_len) {
  if (f->dirfd != dirfd || f->readable < 0) {
    folder_close(f);
    if (readable_dir(dirfd)) {
      f->readable = dirfd;
      f->owned = 0;
    } else {
      f->readable = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (f->readable < 0) return 0;
      f->owned = 1;
    }
    f->dirfd = dirfd;
  }
  if (given != NULL) {
    // An absolute path that fits, without NUL (the caller split it at NULs); anything else is
    // refused, never replaced by the kernel's path (the caller counts on this one being checked).
    if (given_len == 0 || given[0] != '/' || given_len >= sizeof f->path - 1 || memchr(given, 0, given_len) != NULL) {
      f->given = -1;
      return 0;
    }
    if (f->given != 1 || f->len != given_len + (given[given_len - 1] != '/') || memcmp(f->path, given, given_len) != 0) {
      memcpy(f->path, given, given_len);
      f->len = given_len;
      if (f->path[f->len - 1] != '/') f->path[f->len++] = '/';
      f->given = 1;
    }
  } else if (f->given != 0) {
    ssize_t n = proc_link(dirfd, f->path, sizeof f->path - 1); // room for the "/" added
    if (n <= 0) {
      f->given = -1;
      return 0;
    }
    f->len = (size_t)n;
    if (f->path[f->len - 1] != '/') f->path[f->len++] = '/';
    f->given = 0;
  }
  return 1;
}

// folder_barrier waits for any unlink, link or rename in the folder that is under way: those hold
// the folder's inode lock from before they change a link count until after they change the names,
// and getdents takes that lock too (with a buffer too small for one entry it returns EINVAL once
// it has it, reading nothing). Without it the count and the name could be seen in between: an
// unlink of the file's in-folder name drops the count to 1 (its other name, outside) before it
// removes the name, and a read in that moment took the outside file for a file of the folder.
static void folder_barrier(const struct folder* f) {
  char tiny[1];
  while (syscall(SYS_getdents64, f->readable, tiny, sizeof tiny) < 0 && errno == EINTR) {
  }
}

// CODE_NO_DESCRIPTOR: hold_file could not open a descriptor (EMFILE, ENFILE) while the run held
// others: the run ends there and the file is held again first in the next one (alone, it gets
// CODE_UNREADABLE as before runs). Never returned to JavaScript.
#define CODE_NO_DESCRIPTOR -102

// hold_file opens and counts the entry `name` of the folder `dirfd`, the first half of a read
// (read_at below gives the whole, and the order of the checks):
//  - held with O_PATH|O_NOFOLLOW first (a link in its place is held as the link itself, which fstat
//    then calls not regular; opening with O_PATH has no effect on what is opened) and reopened for
//    reading, through /proc/self/fd/HELD, only if fstat says it is a regular file: a FIFO or
//    device swapped in is never opened;
//  - more than one link: skipped (a second name may lie outside the roots) unless
//    `allow_hard_links` (sandbox.allow_hard_links). This fstat of the held entry is the count that
//    must precede the folder's barrier.
// Returns 0 with *out the reopened descriptor and *st the held entry's fstat (st_nlink == 1 unless
// hard links are allowed), or a negative code with no descriptor open.
static int64_t hold_file(int dirfd, const char* name, struct stat* st, int* out, int allow_hard_links) {
  int held = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (held < 0) return errno == EMFILE || errno == ENFILE ? CODE_NO_DESCRIPTOR : CODE_UNREADABLE;
  if (fstat(held, st) != 0) {
    close(held);
    return CODE_UNREADABLE;
  }
  if (!S_ISREG(st->st_mode)) {
    close(held);
    return CODE_NOT_REGULAR;
  }
  char path[64];
  int proc = proc_fd_dir(held, path, sizeof path);
  int fd = openat(proc, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  int no_descriptor = fd < 0 && (errno == EMFILE || errno == ENFILE);
  close(held);
  if (fd < 0) return no_descriptor ? CODE_NO_DESCRIPTOR : CODE_UNREADABLE;
  // The count (fstat of the held entry, above) comes before the barrier, as it must.
  if (st->st_nlink != 1 && !(allow_hard_links && st->st_nlink > 1)) {
    close(fd);
    return CODE_HARD_LINKED;
  }
  *out = fd;
  return 0;
}

// folder_still_at says whether the held folder is still at the path its files' names are checked
// against, looked at after its barrier: the barrier waited on THIS folder's lock, so a name
// check must not pass for a file of another folder put at that path since (moved there by a
// rename, its unlink waited on by no barrier). Without it the walk's path, verified seconds
// before, could be taken by another folder in advance. One readlink per run of files.
static int folder_still_at(const struct folder* f) {
  char link[PATH_MAX + 16];
  ssize_t n = proc_link(f->dirfd, link, sizeof link - 1);
  if (n <= 0) return 0;
  if (link[n - 1] != '/') link[n++] = '/'; // f->path ends with "/" ("/" for the root itself)
  return (size_t)n == f->len && memcmp(link, f->path, f->len) == 0;
}

// read_held is the second half of a read, for a file hold_file gave (`fd`, `st`), made after a
// folder_barrier of its folder that came after hold_file's count:
//  - its one link must be the name it was opened by: the reopened descriptor's /proc link must be
//    the folder's path + "/" + name (not " (deleted)", not moved; the folder's path is the walk's
//    verified one when readBatch was given it, see there). The kernel drops an unlinked
//    name's count before it removes the name, inside the folder's lock: the barrier waits for that
//    lock, so the name seen after it is final. Kept (rather than fstatat(dirfd, name) compared by
//    dev/ino) because a name compared by dev/ino could have been removed and linked again from
//    outside between the count and the compare; the " (deleted)" mark is sticky.
//  - larger than `limit`: skipped unread; NUL in the first SAMPLE_BYTES: binary, read no further.
// Reads at most min(limit, size + 1) bytes into buf; when the buffer is too small for that,
// returns CODE_NEED_BUFFER with info[0] the length wanted (the caller grows it and calls again).
// `needles` (may be empty) are texts every match holds, packed as [u32 length][bytes]...: a file
// read whole that lacks one returns CODE_NO_MATCH with info[0] its length (find_text finds
// them far faster than Buffer.indexOf, and JavaScript never sees the file).
// info[0] is the fstat size otherwise. Closes `fd` in every case.
static int64_t read_held(const struct folder* folder, int fd, const struct stat* st, const char* name, uint8_t* buf, size_t cap, double limit, double* info, const uint8_t* needles, size_t needles_len) {
  int64_t code;
  // A name ending in " (deleted)" cannot be told from the kernel's mark of a removed one: a link
  // to an outside file held as "x (deleted)", renamed to "x" and removed before its count, has
  // the /proc link "<folder>/x (deleted)", the very name it was held by. Such files are not read.
  static const char deleted_mark[] = " (deleted)";
  size_t mark_len = sizeof deleted_mark - 1, held_len = strlen(name);
  if (held_len >= mark_len && memcmp(name + held_len - mark_len, deleted_mark, mark_len) == 0) {
    code = CODE_UNREADABLE;
    goto done;
  }
  char link[PATH_MAX + 16];
  ssize_t n = proc_link(fd, link, sizeof link);
  if (n < 0) {
    code = CODE_UNREADABLE;
    goto done;
  }
  size_t name_len = strlen(name);
  int in_folder = (size_t)n >= folder->len && memcmp(link, folder->path, folder->len) == 0;
  if (!in_folder || (size_t)n != folder->len + name_len || memcmp(link + folder->len, name, name_len) != 0) {
    // With the walk's verified path (given), a file whose folder is no longer at that path is
    // "outside" (the walk's check of the folder no longer holds), as the JavaScript check of the
    // folder after the reads calls it; a name removed or moved is "hard-linked", as before.
    code = folder->given == 1 && !in_folder ? CODE_OUTSIDE : CODE_HARD_LINKED;
    goto done;
  }
  double size = (double)st->st_size;
  info[0] = size;
  if (size > limit) {
    code = CODE_TOO_LARGE;
    goto done;
  }
  double wanted_d = size + 1 < limit ? size + 1 : limit;
  size_t wanted = (size_t)wanted_d;
  size_t room = wanted < cap ? wanted : cap;
  size_t length = 0;
  int sampled = 0;
  for (;;) {
    if (length == room) {
      if (length >= wanted) break;
      info[0] = wanted_d;
      code = CODE_NEED_BUFFER;
      goto done;
    }
    size_t ask = room - length;
    if (!sampled && length + ask > FIRST_READ_BYTES) ask = length < FIRST_READ_BYTES ? FIRST_READ_BYTES - length : ask;
    ssize_t got = pread(fd, buf + length, ask, (off_t)length);
    if (got < 0) {
      if (errno == EINTR) continue;
      code = CODE_UNREADABLE;
      goto done;
    }
    length += (size_t)got;
    int ended = got == 0 || (double)length >= size;
    if (!sampled && (ended || length >= SAMPLE_BYTES)) {
      size_t sample = length < SAMPLE_BYTES ? length : SAMPLE_BYTES;
      if (memchr(buf, 0, sample) != NULL) {
        code = CODE_BINARY;
        goto done;
      }
      sampled = 1;
    }
    if (ended) break;
    if (sampled && room < wanted) {
      // Not binary, and too large for what is left of the buffer (by its fstat size): said now,
      // not after reading what fits only to read it all again into a buffer of its size (a 9 MB
      // file cost 8 MB of copying and of page faults for nothing, each search).
      info[0] = wanted_d;
      code = CODE_NEED_BUFFER;
      goto done;
    }
  }
  code = (int64_t)length;
  for (size_t at = 0; at + 4 <= needles_len;) {
    uint32_t len;
    memcpy(&len, needles + at, 4);
    at += 4;
    if (len > needles_len - at) break;
    if (len > 0 && find_text(buf, length, needles + at, len) == NULL) {
      info[0] = (double)length;
      code = CODE_NO_MATCH;
      break;
    }
    at += len;
  }
done:
  close(fd);
  return code;
}

// read_at opens, verifies and reads the entry `name` of the folder `dirfd`, keeping every check
// of the JavaScript path (src/files/search/match-worker.ts), in this order: hold_file (hold with
// O_PATH, fstat: regular, reopen, the count), folder_barrier, read_held (the name, then the
// read). One file; readBatch holds a run of files first and takes one barrier for the run.
// No descriptor stays open when it returns.
static int64_t read_at(struct folder* folder, int dirfd, const char* name, uint8_t* buf, size_t cap, double limit, double* info, const uint8_t* needles, size_t needles_len, int allow_hard_links) {
  if (!folder_open(folder, dirfd, NULL, 0)) return CODE_UNREADABLE;
  struct stat st;
  int fd = -1;
  int64_t code = hold_file(dirfd, name, &st, &fd, allow_hard_links);
  if (code != 0) return code == CODE_NO_DESCRIPTOR ? CODE_UNREADABLE : code;
  // After the count, the barrier (on a folder still at its path), then the name (read_held).
  folder_barrier(folder);
  if (!folder_still_at(folder)) {
    close(fd);
    return CODE_OUTSIDE;
  }
  return read_held(folder, fd, &st, name, buf, cap, limit, info, needles, needles_len);
}

// readFileAt(dirFd, name, buffer, limit, info: Float64Array(1), needles: Buffer | null, allowHardLinks: boolean).
static napi_value ReadFileAt(napi_env env, napi_callback_info cb) {
  size_t argc = 7;
  napi_value argv[7];
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 5) goto bad;
  int32_t dirfd;
  char name[NAME_MAX + 2];
  void* data;
  size_t cap;
  double limit;
  napi_typedarray_type type;
  size_t info_len;
  void* info;
  if (!int_arg(env, argv[0], &dirfd) || dirfd < 0) goto bad;
  if (!name_arg(env, argv[1], name, sizeof name)) return make_int(env, CODE_UNREADABLE);
  if (napi_get_buffer_info(env, argv[2], &data, &cap) != napi_ok) goto bad;
  if (napi_get_value_double(env, argv[3], &limit) != napi_ok || !(limit >= 0)) goto bad; // not NaN
  if (napi_get_typedarray_info(env, argv[4], &type, &info_len, &info, NULL, NULL) != napi_ok || type != napi_float64_array || info_len < 1) goto bad;
  void* needles = NULL;
  size_t needles_len = 0;
  if (argc >= 6) {
    bool is_buffer = false;
    napi_is_buffer(env, argv[5], &is_buffer);
    if (is_buffer && napi_get_buffer_info(env, argv[5], &needles, &needles_len) != napi_ok) goto bad;
  }
  int allow_hard_links = argc >= 7 && true_arg(env, argv[6]);
  proc_fds_check();
  napi_value result;
  struct folder folder = {.dirfd = -1, .readable = -1, .owned = 0, .given = -1};
  int64_t code = read_at(&folder, dirfd, name, (uint8_t*)data, cap, limit, (double*)info, (const uint8_t*)needles, needles_len, allow_hard_links);
  folder_close(&folder);
  napi_create_double(env, (double)code, &result);
  return result;
bad:
  napi_throw_type_error(env, NULL, "readFileAt(dirFd, name, buffer, limit, info, needles, allowHardLinks)");
  return NULL;
}

// RUN_FILES bounds a run of files of one folder that readBatch holds open at once (one
// descriptor each, plus one held O_PATH while a file is reopened): at most 65 descriptors per
// calling thread, against a process limit in the thousands; running out (EMFILE) only ends the
// run early (CODE_NO_DESCRIPTOR).
#define RUN_FILES 64

// run_file is one file of a run: readBatch holds and counts each file of the run (hold_file:
// O_PATH hold, fstat, reopen, link count), then takes ONE folder_barrier for the run, then checks
// each file's name and reads it (read_held), in order. Each file's guarantee is the one read_at
// gives, unchanged: what it needs is that the file's count precedes a barrier of its folder and
// its name check follows that barrier, all in one thread. An unlink of the file's in-folder name
// that the count may have seen half done (its count dropped, its name not yet removed) holds the
// folder's inode lock from before the count drop until after the name is gone; the count was
// taken inside that span, so the barrier, which takes the same lock after the count, returns only
// once that unlink is over, and the name check after it sees " (deleted)". Nothing in that
// argument depends on how much time passes between the count and the barrier, nor on other files
// being counted or read in between: the files of the run only share the barrier, which comes
// after every one of their counts (the holding loop ends before it) and before every one of their
// name checks (the reading loop starts after it). Files not held (not regular, hard-linked,
// unreadable: fd -1) keep their code and get no name check, as in read_at.
struct run_file {
  const char* name;
  int fd; // the reopened descriptor (hold_file), -1 when none is open
  int64_t code; // hold_file's code when fd is -1
  struct stat st; // the held entry's fstat: its size is what read_held reads
};

// readBatch(dirFds: Int32Array, names: string, from, buffer, limit, needles: Buffer | null,
//           results: Float64Array(2 per file), folderPaths: string | null, allowHardLinks: boolean)
//   -> the index of the first file not read. allowHardLinks: files with several links are read
//   (sandbox.allow_hard_links) where they are otherwise CODE_HARD_LINKED; anything but true refuses.
// Reads files from..n-1 (names joined by NUL, one per dirFds entry) as readFileAt does, one after
// another into `buffer`, each at the offset after the previous one's content: results[2i] is
// file i's code (length read, or a negative code), results[2i+1] its content's offset (or, for
// CODE_NO_MATCH and CODE_NEED_BUFFER, info[0]). Stops before a file that does not fit in what is
// left of the buffer (unless it is the first: that one gets CODE_NEED_BUFFER), so the caller
// matches what was read and calls again from there: one call per batch of files instead of one
// per file. A name that is not a single entry name gets CODE_UNREADABLE. Consecutive files of one
// folder are read in runs of up to RUN_FILES with one barrier per run (see struct run_file).
//
// folderPaths (optional, NUL-joined, one per file like names): the kernel path of each file's
// folder as the walk verified it inside the roots when it opened the folder. Given (not ""), it
// replaces the folder's readlink of /proc/self/fd/DIR per run, and each file's name check then
// asks that its own kernel path, after its barrier, be exactly that path + "/" + name: at that
// moment the file is the one-link entry `name` of a folder at the verified path, inside the roots.
// That is the check the caller made of the folder once, after the reads (its kernel path still
// inside the roots), made for each file at its name check instead, so the caller skips it for
// these files. A file whose folder is no longer at that path gets CODE_OUTSIDE (its folder was
// renamed since the walk; src/files/search/read-file-at.ts reads such a file again without the
// path and checks its folder after the reads, as before), one whose own name is gone
// CODE_HARD_LINKED as before. A given path
// that is not absolute or does not fit is refused (CODE_UNREADABLE), never replaced by the kernel's.
// skip_entries returns the offset of entry `count` of a NUL-joined list (list_len + 1 past its end).
static size_t skip_entries(const char* list, size_t list_len, int32_t count) {
  size_t at = 0;
  for (int32_t skip = 0; skip < count && at <= list_len; skip++) {
    const char* nul = memchr(list + at, 0, list_len - at);
    at = nul == NULL ? list_len + 1 : (size_t)(nul - list) + 1;
  }
  return at;
}

static napi_value ReadBatch(napi_env env, napi_callback_info cb) {
  size_t argc = 9;
  napi_value argv[9];
  napi_typedarray_type type;
  size_t nfds, nresults, cap, names_len, needles_len = 0, paths_len = 0;
  void *fds_data, *results_data, *data;
  void* needles = NULL;
  int32_t from;
  double limit;
  char* names = NULL;
  char* paths = NULL;
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 7) goto bad;
  if (napi_get_typedarray_info(env, argv[0], &type, &nfds, &fds_data, NULL, NULL) != napi_ok || type != napi_int32_array) goto bad;
  if (napi_get_value_string_utf8(env, argv[1], NULL, 0, &names_len) != napi_ok) goto bad;
  if (!int_arg(env, argv[2], &from) || from < 0) goto bad;
  if (napi_get_buffer_info(env, argv[3], &data, &cap) != napi_ok) goto bad;
  if (napi_get_value_double(env, argv[4], &limit) != napi_ok || !(limit >= 0)) goto bad; // not NaN
  bool is_buffer = false;
  napi_is_buffer(env, argv[5], &is_buffer);
  if (is_buffer && napi_get_buffer_info(env, argv[5], &needles, &needles_len) != napi_ok) goto bad;
  if (napi_get_typedarray_info(env, argv[6], &type, &nresults, &results_data, NULL, NULL) != napi_ok || type != napi_float64_array || nresults < 2 * nfds) goto bad;
  if (argc >= 8) {
    napi_valuetype kind;
    if (napi_typeof(env, argv[7], &kind) != napi_ok) goto bad;
    if (kind == napi_string) {
      if (napi_get_value_string_utf8(env, argv[7], NULL, 0, &paths_len) != napi_ok) goto bad;
      paths = malloc(paths_len + 1);
      if (paths == NULL) goto bad;
      napi_get_value_string_utf8(env, argv[7], paths, paths_len + 1, &paths_len);
    } else if (kind != napi_null && kind != napi_undefined) {
      goto bad;
    }
  }
  int allow_hard_links = argc >= 9 && true_arg(env, argv[8]);
  names = malloc(names_len + 1);
  if (names == NULL) goto bad;
  napi_get_value_string_utf8(env, argv[1], names, names_len + 1, &names_len);
  const int32_t* fds = (const int32_t*)fds_data;
  double* results = (double*)results_data;
  // Find the name (and folder path) of file `from`, then go on from there.
  size_t at = skip_entries(names, names_len, from);
  size_t path_at = paths == NULL ? 0 : skip_entries(paths, paths_len, from);
  proc_fds_check();
  size_t offset = 0;
  size_t i = (size_t)from;
  struct folder folder = {.dirfd = -1, .readable = -1, .owned = 0, .given = -1};
  struct run_file run[RUN_FILES];
  while (i < nfds) {
    // Hold and count a run of files of one folder (see struct run_file), then one barrier, then
    // each file's name and content in order.
    size_t count = 0, held = 0;
    double expected = 0; // bytes the run's held files would take, by their fstat sizes
    int32_t dirfd = fds[i];
    // The run's folder path, when given: file i's entry of `paths` ("" or none: not given).
    const char* given = paths != NULL && path_at <= paths_len ? paths + path_at : "";
    size_t given_len = paths != NULL && path_at <= paths_len ? strnlen(given, paths_len - path_at) : 0;
    int opened = dirfd >= 0 && folder_open(&folder, dirfd, given_len > 0 ? given : NULL, given_len);
    for (size_t j = i; j < nfds && count < RUN_FILES && fds[j] == dirfd; j++) {
      const char* name = at <= names_len ? names + at : "";
      size_t len = at <= names_len ? strnlen(name, names_len - at) : 0;
      if (paths != NULL) {
        // A run is files of one folder descriptor with one given path (the walk gives one per
        // folder: a different one ends the run, and gets its own folder_open).
        const char* path = path_at <= paths_len ? paths + path_at : "";
        size_t path_len = path_at <= paths_len ? strnlen(path, paths_len - path_at) : 0;
        if (path_len != given_len || memcmp(path, given, path_len) != 0) break;
      }
      struct run_file* f = &run[count];
      f->name = name;
      f->fd = -1;
      f->code = CODE_UNREADABLE;
      if (opened && len > 0 && len <= NAME_MAX && memchr(name, '/', len) == NULL && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
        f->code = hold_file(dirfd, name, &f->st, &f->fd, allow_hard_links);
        if (f->code == CODE_NO_DESCRIPTOR) {
          if (held > 0) break; // out of descriptors: this file is held again, first, in the next run
          f->code = CODE_UNREADABLE;
        }
      }
      count++;
      at += len + 1;
      if (paths != NULL) path_at += given_len + 1; // this file's path is the run's (checked above)
      if (f->fd >= 0) {
        held++;
        // Without needles every file read stays in the buffer: a run that would fill it ends
        // here, so that the files after it are not held only to be let go (see below). With
        // needles most files are not kept (CODE_NO_MATCH) and the run is not cut.
        double size = (double)f->st.st_size;
        expected += size + 1 < limit ? size + 1 : limit;
        if (needles_len == 0 && expected >= (double)(cap - offset)) break;
      }
    }
    // The one barrier of the run: after the count of every held file (hold_file, above), before
    // any of their names is checked (read_held, below). See struct run_file.
    if (held > 0) folder_barrier(&folder);
    if (held > 0 && !folder_still_at(&folder)) {
      // Another folder may stand at the path now: none of the run's files is read (CODE_OUTSIDE,
      // as a file whose folder moved, see read_held).
      for (size_t k = 0; k < count; k++) {
        if (run[k].fd >= 0) {
          close(run[k].fd);
          run[k].fd = -1;
          run[k].code = CODE_OUTSIDE;
        }
      }
    }
    for (size_t k = 0; k < count; k++, i++) {
      struct run_file* f = &run[k];
      double info = 0;
      int64_t code = f->fd >= 0 ? read_held(&folder, f->fd, &f->st, f->name, (uint8_t*)data + offset, cap - offset, limit, &info, (const uint8_t*)needles, needles_len) : f->code;
      f->fd = -1; // read_held closed it
      if (code == CODE_NEED_BUFFER && offset > 0) {
        // Read again, first, in the next call: the files of the run after it are let go unread
        // (held, counted and barriered again then).
        for (size_t rest = k + 1; rest < count; rest++) {
          if (run[rest].fd >= 0) close(run[rest].fd);
        }
        goto stop;
      }
      results[2 * i] = (double)code;
      results[2 * i + 1] = code >= 0 ? (double)offset : info;
      if (code >= 0) offset += (size_t)code;
    }
  }
stop:
  folder_close(&folder);
  free(names);
  free(paths);
  return make_int(env, (int32_t)i);
bad:
  free(names);
  free(paths);
  napi_throw_type_error(env, NULL, "readBatch(dirFds, names, from, buffer, limit, needles, results, folderPaths, allowHardLinks)");
  return NULL;
}

// findLines(content: Buffer, from, needle: Buffer, lineNumber, out: Float64Array) -> count.
// For a pattern whose matches lie within one line and hold `needle` (match-lines.ts): finds the
// lines of content[from..] that hold needle, and writes for each its start, its end (the offset
// of its LF, or the content's length) and its 1-based line number (`lineNumber` is the number of
// the line `from` lies in, `from` a line start), three numbers a line, as many as `out` holds:
// find_text (a vectorized memmem) and a counting loop the compiler vectorizes, instead of
// Buffer.indexOf and a JavaScript newline count over every candidate file. The caller calls again from the end of
// the last line given (plus one) while `out` came back full.
__attribute__((optimize("O3"))) static size_t count_newlines_plain(const uint8_t* p, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += p[i] == '\n';
  return count;
}

#if defined(__x86_64__)
// count_newlines_avx2 counts 32 bytes a step into byte counters (each compare gives 0 or -1, so
// subtracting adds 0 or 1), summed (sad_epu8) every 255 steps before one can overflow: the plain
// loop above is vectorized by the compiler with 64-bit counters, ~4x slower (~2% of the match
// workers' time went to it).
__attribute__((target("avx2"))) static size_t count_newlines_avx2(const uint8_t* p, size_t n) {
  const __m256i nl = _mm256_set1_epi8('\n');
  const __m256i zero = _mm256_setzero_si256();
  size_t count = 0, i = 0;
  while (n - i >= 32) {
    size_t steps = (n - i) / 32;
    if (steps > 255) steps = 255;
    __m256i counters = zero;
    for (size_t s = 0; s < steps; s++, i += 32) {
      counters = _mm256_sub_epi8(counters, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)(p + i)), nl));
    }
    __m256i sums = _mm256_sad_epu8(counters, zero);
    count += (size_t)_mm256_extract_epi64(sums, 0) + (size_t)_mm256_extract_epi64(sums, 1) + (size_t)_mm256_extract_epi64(sums, 2) + (size_t)_mm256_extract_epi64(sums, 3);
  }
  return count + count_newlines_plain(p + i, n - i);
}
#endif

static size_t count_newlines(const uint8_t* p, size_t n) {
#if defined(__x86_64__)
  if (avx2_ok()) return count_newlines_avx2(p, n);
#endif
  return count_newlines_plain(p, n);
}

static napi_value FindLines(napi_env env, napi_callback_info cb) {
  size_t argc = 5;
  napi_value argv[5];
  void *data, *needle, *out_data;
  size_t length, needle_len, out_len;
  double from_d, line_d;
  napi_typedarray_type type;
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 5 || napi_get_buffer_info(env, argv[0], &data, &length) != napi_ok ||
      napi_get_value_double(env, argv[1], &from_d) != napi_ok || napi_get_buffer_info(env, argv[2], &needle, &needle_len) != napi_ok ||
      napi_get_value_double(env, argv[3], &line_d) != napi_ok ||
      napi_get_typedarray_info(env, argv[4], &type, &out_len, &out_data, NULL, NULL) != napi_ok || type != napi_float64_array || needle_len == 0 ||
      !(from_d >= 0) || !(line_d >= 1)) {
    napi_throw_type_error(env, NULL, "findLines(content, from, needle, lineNumber, out)");
    return NULL;
  }
  const uint8_t* content = (const uint8_t*)data;
  double* out = (double*)out_data;
  size_t max = out_len / 3, found = 0;
  size_t counted = from_d < (double)length ? (size_t)from_d : length; // newlines counted up to here
  double line = line_d;
  size_t at = counted;
  while (found < max && at < length) {
    const uint8_t* hit = find_text(content + at, length - at, needle, needle_len);
    if (hit == NULL) break;
    size_t pos = (size_t)(hit - content);
    const uint8_t* nl = memrchr(content + counted, '\n', pos - counted);
    size_t start = nl == NULL ? counted : (size_t)(nl - content) + 1;
    line += (double)count_newlines(content + counted, start - counted);
    counted = start;
    const uint8_t* end_p = memchr(content + pos, '\n', length - pos);
    size_t end = end_p == NULL ? length : (size_t)(end_p - content);
    out[3 * found] = (double)start;
    out[3 * found + 1] = (double)end;
    out[3 * found + 2] = line;
    found++;
    at = end + 1;
  }
  return make_int(env, (int32_t)found);
}

struct linux_dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// kind_of classifies an entry as Node's Dirent would (d_type, else lstat): d, f or o.
static char kind_of(int dirfd, const struct linux_dirent64* e) {
  unsigned char t = e->d_type;
  if (t == DT_UNKNOWN) {
    struct stat st;
    if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 'o';
    return S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' : 'o';
  }
  return t == DT_DIR ? 'd' : t == DT_REG ? 'f' : 'o';
}

// utf16_order compares two entry names as JavaScript compares the strings they decode to (by
// UTF-16 code units), so that the walk keeps the order it had when it sorted in JavaScript: byte
// order (which is code point order for UTF-8), except that a character of U+E000..U+FFFF (lead
// byte 0xEE or 0xEF) sorts after a supplementary one (lead 0xF0..0xF4, surrogates in UTF-16).
// The first byte that differs starts a character in both names (their prefixes are equal).
static int utf16_order(const void* pa, const void* pb, void* arg) {
  const char* base = arg;
  const unsigned char* x = (const unsigned char*)base + *(const size_t*)pa + 1; // past the kind
  const unsigned char* y = (const unsigned char*)base + *(const size_t*)pb + 1;
  while (*x != 0 && *x == *y) {
    x++;
    y++;
  }
  unsigned cx = *x, cy = *y;
  if ((cx == 0xEE || cx == 0xEF) && cy >= 0xF0 && cy <= 0xF4) return 1;
  if ((cy == 0xEE || cy == 0xEF) && cx >= 0xF0 && cx <= 0xF4) return -1;
  return cx < cy ? -1 : cx > cy ? 1 : 0;
}

// listDir(dirFd): the folder's entries ("." and ".." left out) read with getdents64 through dirFd
// itself when it is open for reading (from its start: lseek), else through a descriptor opened as
// "." relative to it (O_PATH), never by path. Read through dirFd, the walk leaves its position at
// the end, where the match workers' barrier getdents (folder_barrier) finds nothing to read.
// Sorted by name (utf16_order): sorting here rather than in JavaScript spares the walk a string
// comparison per pair and its garbage.
static napi_value ListDir(napi_env env, napi_callback_info cb) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t dirfd;
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || !int_arg(env, argv[0], &dirfd) || dirfd < 0) {
    napi_throw_type_error(env, NULL, "listDir(dirFd)");
    return NULL;
  }
  int own = !readable_dir(dirfd);
  int fd = own ? openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : dirfd;
  if (fd < 0) return make_null(env);
  if (!own && lseek(fd, 0, SEEK_SET) != 0) return make_null(env);
  size_t size = 0, cap = 16 * 1024, count = 0, starts_cap = 512;
  char* out = malloc(cap);
  size_t* starts = malloc(starts_cap * sizeof *starts); // where each entry begins in `out`
  char chunk[32 * 1024];
  int failed = out == NULL || starts == NULL;
  while (!failed) {
    long got = syscall(SYS_getdents64, fd, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      failed = 1;
      break;
    }
    if (got == 0) break;
    for (long at = 0; at < got;) {
      struct linux_dirent64* e = (struct linux_dirent64*)(chunk + at);
      at += e->d_reclen;
      const char* nm = e->d_name;
      if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0))) continue;
      size_t len = strlen(nm);
      if (size + len + 2 > cap) {
        while (size + len + 2 > cap) cap *= 2;
        char* grown = realloc(out, cap);
        if (grown == NULL) {
          failed = 1;
          break;
        }
        out = grown;
      }
      if (count == starts_cap) {
        size_t* grown = realloc(starts, 2 * starts_cap * sizeof *starts);
        if (grown == NULL) {
          failed = 1;
          break;
        }
        starts = grown;
        starts_cap *= 2;
      }
      starts[count++] = size;
      out[size++] = kind_of(fd, e);
      memcpy(out + size, nm, len);
      size += len;
      out[size++] = 0;
    }
  }
  if (own) close(fd);
  char* sorted = failed ? NULL : malloc(size + 1);
  if (sorted != NULL) {
    qsort_r(starts, count, sizeof *starts, utf16_order, out);
    size_t at = 0;
    for (size_t k = 0; k < count; k++) {
      size_t len = strlen(out + starts[k]) + 1; // kind, name and its NUL
      memcpy(sorted + at, out + starts[k], len);
      at += len;
    }
  }
  napi_value result;
  if (sorted == NULL || napi_create_string_utf8(env, sorted, size, &result) != napi_ok) result = make_null(env);
  free(sorted);
  free(starts);
  free(out);
  return result;
}

// openDirAt(parentFd, name): the sub-folder held open for reading, never through a link
// (O_DIRECTORY|O_NOFOLLOW: a link, a file, a FIFO or a device in its place fails, never opened).
// Read-only rather than O_PATH so that listDir and the match workers' barrier use this descriptor
// itself instead of opening "." relative to it each time: opening a directory for reading has no
// effect beyond what the O_PATH lookup with O_DIRECTORY had (the same lookup, automounts
// included), and a folder that cannot be read (no r permission), which O_PATH would hold, could
// not be listed either: both skip it and everything below it.
static napi_value OpenDirAt(napi_env env, napi_callback_info cb) {
  int32_t parent;
  char name[NAME_MAX + 2];
  int args = fd_name_args(env, cb, "openDirAt(parentFd, name)", &parent, name, sizeof name);
  if (args == 0) return NULL;
  if (args < 0) return make_int(env, -EINVAL);
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return make_int(env, fd < 0 ? -errno : fd);
}

// lstatAt(dirFd, name, out): fstatat of the entry `name` of the folder `dirFd` (O_PATH is enough),
// the final link not followed: out[0..4] = st_mode, st_nlink, st_size, st_mtim's seconds and
// nanoseconds; 0, or -errno (-EINVAL for a name that is not one entry). A listing describes each
// entry this way: relative to the held descriptor, where lstat of /proc/self/fd/N/NAME walks
// /proc first (about twice the time) and Node builds a Stats with four Dates per entry.
static napi_value LstatAt(napi_env env, napi_callback_info cb) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t dirfd;
  napi_typedarray_type type;
  size_t out_len = 0;
  void* out_data = NULL;
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 3 || !int_arg(env, argv[0], &dirfd) || dirfd < 0 ||
      napi_get_typedarray_info(env, argv[2], &type, &out_len, &out_data, NULL, NULL) != napi_ok || type != napi_float64_array ||
      out_len < 5) {
    napi_throw_type_error(env, NULL, "lstatAt(dirFd, name, out: Float64Array(5))");
    return NULL;
  }
  char name[NAME_MAX + 2];
  if (!name_arg(env, argv[1], name, sizeof name)) return make_int(env, -EINVAL);
  struct stat st;
  if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return make_int(env, -errno);
  double* out = out_data;
  out[0] = (double)st.st_mode;
  out[1] = (double)st.st_nlink;
  out[2] = (double)st.st_size;
  out[3] = (double)st.st_mtim.tv_sec;
  out[4] = (double)st.st_mtim.tv_nsec;
  return make_int(env, 0);
}

// fdPath(fd): what /proc/self/fd/FD links to, or null.
static napi_value FdPath(napi_env env, napi_callback_info cb) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || !int_arg(env, argv[0], &fd) || fd < 0) {
    napi_throw_type_error(env, NULL, "fdPath(fd)");
    return NULL;
  }
  char link[PATH_MAX + 16];
  proc_fds_check();
  ssize_t n = proc_link(fd, link, sizeof link);
  if (n < 0) return make_null(env);
  napi_value result;
  if (napi_create_string_utf8(env, link, (size_t)n, &result) != napi_ok) return make_null(env);
  return result;
}

// path_arg copies a JS string argument into `out` (cap bytes): false if it is not a string, empty,
// too long, or holds a NUL.
static int path_arg(napi_env env, napi_value value, char* out, size_t cap) {
  size_t full = 0, len = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &full) != napi_ok || full == 0 || full >= cap - 1) return 0;
  return napi_get_value_string_utf8(env, value, out, cap, &len) == napi_ok && len == full && strlen(out) == len;
}

// folderBarrier(path): folder_barrier for a folder named by its path, as the sandbox's checks of a
// file opened for reading use it (src/sandbox/folder-barrier.ts): Node's opendir builds a Dir
// object (two promisified functions, a 32 KiB read) per call, 12-60 us where this is ~2 us.
static napi_value FolderBarrier(napi_env env, napi_callback_info cb) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return make_null(env);
  char path[PATH_MAX];
  if (!path_arg(env, argv[0], path, sizeof path)) return make_null(env);
  struct folder f = {.dirfd = -1, .readable = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)};
  napi_value result;
  napi_get_boolean(env, f.readable >= 0, &result);
  if (f.readable >= 0) {
    folder_barrier(&f);
    close(f.readable);
  }
  return result;
}

// AT_HANDLE_CONNECTABLE (Linux 6.13, include/uapi/linux/fcntl.h): a file handle that also names
// the entry's parent folder. Not in older C library headers.
#ifndef AT_HANDLE_CONNECTABLE
#define AT_HANDLE_CONNECTABLE 0x002
#endif

// connectable_handle fills `h` with the connectable handle of the entry at `path` (following a
// final link only with `follow`, for a /proc/self/fd/N magic link); false where the kernel or the
// filesystem has none (before 6.13, tmpfs: EINVAL, EOPNOTSUPP) or the entry is gone.
struct handle_buf {
  struct file_handle h;
  unsigned char bytes[MAX_HANDLE_SZ];
};
static int connectable_handle(const char* path, int follow, struct handle_buf* out) {
  int mount_id;
  out->h.handle_bytes = MAX_HANDLE_SZ;
  return name_to_handle_at(AT_FDCWD, path, &out->h, &mount_id, AT_HANDLE_CONNECTABLE | (follow ? AT_SYMLINK_FOLLOW : 0)) == 0;
}

// sameEntryAndFolder(named, held): 1 when the entry at `named` (a name looked up in a held folder,
// /proc/self/fd/X/NAME, a final link not followed) and the entry of the descriptor `held`
// (/proc/self/fd/E, followed) are the same inode IN THE SAME FOLDER now, 0 when not, -1 when the
// filesystem cannot tell (no connectable handles for the held entry). A connectable handle encodes the inode and
// its parent folder's (the filesystem's own encoding, compared whole: the same function made
// both). Why (src/sandbox/only-name-check.ts): the kernel has no call that opens a file's
// parent, and a name being unlinked at the count is pinned to its folder from then on (the
// unlink holds that folder's lock; then the name is gone), so a descriptor in the held folder
// after its count was not being unlinked elsewhere at the count.
static napi_value SameEntryAndFolder(napi_env env, napi_callback_info cb) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 2) return make_null(env);
  char named[PATH_MAX], held[PATH_MAX];
  if (!path_arg(env, argv[0], named, sizeof named) || !path_arg(env, argv[1], held, sizeof held)) return make_null(env);
  struct handle_buf a, b;
  // Only the held entry's handle says whether the filesystem has them (overlayfs and tmpfs do
  // not): a name no longer in the folder (moved away, to be unlinked elsewhere) is a "not same".
  if (!connectable_handle(held, 1, &b)) return make_int(env, -1);
  if (!connectable_handle(named, 0, &a)) return make_int(env, 0);
  int same = a.h.handle_type == b.h.handle_type && a.h.handle_bytes == b.h.handle_bytes && memcmp(a.h.f_handle, b.h.f_handle, a.h.handle_bytes) == 0;
  return make_int(env, same);
}

// holdOnFolderMount(dirFd, name): the entry `name` of the held folder, held with
// O_PATH|O_NOFOLLOW (nothing opened for I/O, a final link held as itself), looked up with
// openat2's RESOLVE_NO_XDEV: -EXDEV when something is mounted on that name (a bind mount, NFS,
// FUSE), so the answer comes from the held folder's descriptor at the time of the call, not from
// a path or a copy of the mount table (a mount moved along with a renamed folder is still seen).
// Otherwise the descriptor (the caller closes it; atomicWrite keeps it as its pin of the file a
// rename replaces, replaced-file-pin.ts), or -errno: -ENOENT none there, -ENOSYS/-EPERM no
// openat2 (kernel < 5.6, or a seccomp filter): the caller falls back to the mount table.
//
// What the lookup can wait on: only the held folder's own filesystem (its dentry cache; on a cold
// cache, a read of the folder's blocks, and its inode lock shared against a rename or create in
// that folder, as any lookup there) and the mount hash (RCU). On a mount point it stops at the
// crossing: the mounted filesystem's root is neither opened (O_PATH) nor revalidated (its
// d_weak_revalidate, an NFS GETATTR, runs only for a lookup that goes on past the crossing), and
// no automount is triggered (O_PATH carries no open intent). The one exception is autofs, whose
// d_manage is asked before the crossing is judged (a name that is an autofs trigger in transit).
// RESOLVE_BENEATH too: `name` is one entry (name_arg), but nothing else may ever escape either.
static napi_value HoldOnFolderMount(napi_env env, napi_callback_info cb) {
  int32_t dirfd;
  char name[NAME_MAX + 2];
  int args = fd_name_args(env, cb, "holdOnFolderMount(dirFd, name)", &dirfd, name, sizeof name);
  if (args == 0) return NULL;
  if (args < 0) return make_int(env, -EINVAL);
  struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = RESOLVE_NO_XDEV | RESOLVE_BENEATH};
  long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof how);
  return make_int(env, fd < 0 ? -errno : (int32_t)fd);
}

// renameNoReplaceAt(fromDirFd, fromName, toDirFd, toName): renameat2(RENAME_NOREPLACE) of the
// entry `fromName` of the held folder `fromDirFd` to `toName` of the held folder `toDirFd`, each
// name one entry of its folder (never a path walked again): one atomic step that fails with
// EEXIST when `toName` is taken and never replaces it. 0, or -errno: -EINVAL or -ENOSYS when the
// kernel or the filesystem has no RENAME_NOREPLACE (the caller falls back, place-entry.ts). A
// name that is not one entry, or a bad descriptor, throws a TypeError (so -EINVAL only ever means
// the flag was refused).
static napi_value RenameNoReplaceAt(napi_env env, napi_callback_info cb) {
  static const char usage[] = "renameNoReplaceAt(fromDirFd, fromName, toDirFd, toName)";
  size_t argc = 4;
  napi_value argv[4];
  int32_t fromfd, tofd;
  char from[NAME_MAX + 2], to[NAME_MAX + 2];
  if (napi_get_cb_info(env, cb, &argc, argv, NULL, NULL) != napi_ok || argc < 4 || !int_arg(env, argv[0], &fromfd) || fromfd < 0 ||
      !name_arg(env, argv[1], from, sizeof from) || !int_arg(env, argv[2], &tofd) || tofd < 0 || !name_arg(env, argv[3], to, sizeof to)) {
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  long r = syscall(SYS_renameat2, fromfd, from, tofd, to, RENAME_NOREPLACE);
  return make_int(env, r < 0 ? -errno : 0);
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"readFileAt", NULL, ReadFileAt, NULL, NULL, NULL, napi_enumerable, NULL},
      {"readBatch", NULL, ReadBatch, NULL, NULL, NULL, napi_enumerable, NULL},
      {"findLines", NULL, FindLines, NULL, NULL, NULL, napi_enumerable, NULL},
      {"listDir", NULL, ListDir, NULL, NULL, NULL, napi_enumerable, NULL},
      {"openDirAt", NULL, OpenDirAt, NULL, NULL, NULL, napi_enumerable, NULL},
      {"lstatAt", NULL, LstatAt, NULL, NULL, NULL, napi_enumerable, NULL},
      {"fdPath", NULL, FdPath, NULL, NULL, NULL, napi_enumerable, NULL},
      {"folderBarrier", NULL, FolderBarrier, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sameEntryAndFolder", NULL, SameEntryAndFolder, NULL, NULL, NULL, napi_enumerable, NULL},
      {"holdOnFolderMount", NULL, HoldOnFolderMount, NULL, NULL, NULL, napi_enumerable, NULL},
      {"renameNoReplaceAt", NULL, RenameNoReplaceAt, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
