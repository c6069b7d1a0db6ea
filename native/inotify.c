// Linux inotify for the warm scope check: two calls, nothing else (a watch ends with its inode
// or its descriptor). Events are read from the descriptor with fs.readSync in JavaScript, so
// this file holds no buffers and no threads.
// Built by scripts/build-native.mjs against Node-API only (ABI-stable across Node versions).
#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <node_api.h>

#define CHECK(call)                                                    \
  do {                                                                 \
    if ((call) != napi_ok) {                                           \
      napi_throw_error(env, NULL, "inotify: bad arguments");           \
      return NULL;                                                     \
    }                                                                  \
  } while (0)

static napi_value number(napi_env env, int value) {
  napi_value out;
  napi_create_int32(env, value, &out);
  return out;
}

// init() -> a non-blocking, close-on-exec inotify descriptor, or -errno.
static napi_value init(napi_env env, napi_callback_info info) {
  (void)info;
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  return number(env, fd < 0 ? -errno : fd);
}

// add(fd, path: Buffer, mask) -> the watch descriptor, or -errno. The path is bytes ending in NUL.
static napi_value add(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 3) {
    napi_throw_error(env, NULL, "inotify.add(fd, path, mask)");
    return NULL;
  }
  int32_t fd;
  uint32_t mask;
  void *data;
  size_t len;
  CHECK(napi_get_value_int32(env, argv[0], &fd));
  CHECK(napi_get_buffer_info(env, argv[1], &data, &len));
  CHECK(napi_get_value_uint32(env, argv[2], &mask));
  if (len == 0 || ((const char *)data)[len - 1] != '\0' || memchr(data, '\0', len - 1) != NULL) {
    napi_throw_error(env, NULL, "inotify.add: the path must be bytes ending in one NUL");
    return NULL;
  }
  int wd = inotify_add_watch(fd, (const char *)data, mask);
  return number(env, wd < 0 ? -errno : wd);
}

static napi_value module_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"init", NULL, init, NULL, NULL, NULL, napi_default, NULL},
      {"add", NULL, add, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, module_init)
