# Settee in a container, for a LAN box (a NAS, a small server, a laptop). README.md,
# "Run in a container", has the run and compose lines.
#
#   docker build -t settee .
#   docker run -d --name settee --network host -v settee-data:/var/lib/settee \
#     -e SETTEE_ADMIN=admin:secret settee
#
# Two stages: `build` compiles settee on the official Swift image (release, the Swift
# standard library linked in statically); `runtime` is debian:bookworm-slim with only
# the C libraries settee links, running as an unprivileged user.
#
# SETTEE_BINARY_FROM names where /out/settee comes from: the `build` stage by default.
# The tests pass an image holding a binary built on the host instead (no registry can be
# reached there); a normal build is unchanged by it.
ARG SWIFT_VERSION=6.3
ARG SETTEE_BINARY_FROM=build

FROM swift:${SWIFT_VERSION}-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libsqlite3-dev libcurl4-openssl-dev libssl-dev libavahi-compat-libdnssd-dev libqrencode-dev libpcre2-dev libicu-dev \
      zlib1g-dev pkg-config binutils \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest names the test targets too, so their folders must exist (they are not built).
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product settee \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/settee" /out/settee \
 && strip /out/settee

# hadolint ignore=DL3006
FROM ${SETTEE_BINARY_FROM} AS binary

FROM debian:bookworm-slim AS runtime
# Design document functions (views, validate_doc_update, filters) need JavaScriptCore,
# loaded when first used: WITH_JAVASCRIPT=true adds it, about 40 MB (ICU, which it
# also needs, is always there: views and Mango collate strings with it).
# Without it they answer 501 and everything else works.
ARG WITH_JAVASCRIPT=false
# curl is for HEALTHCHECK (libcurl is here for the replicator anyway).
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libsqlite3-0 libcurl4 libssl3 libavahi-compat-libdnssd1 libqrencode4 libpcre2-8-0 libicu72 zlib1g ca-certificates curl \
      $(if [ "$WITH_JAVASCRIPT" = true ]; then echo libjavascriptcoregtk-4.1-0; fi) \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 5984 settee \
 && useradd --system --uid 5984 --gid settee --home-dir /var/lib/settee --shell /usr/sbin/nologin settee \
 && install -d -o settee -g settee -m 0750 /var/lib/settee /etc/settee
COPY --from=binary /out/settee /usr/local/bin/settee
COPY --chown=settee:settee config/settee.ini /etc/settee/settee.ini
# Every setting can also come from the ini (mount your own at /etc/settee/settee.ini).
# SETTEE_ADMIN=name:password, or SETTEE_ADMIN_FILE=/run/secrets/... holding it; without an
# admin, settee refuses to listen beyond loopback and the container exits.
ENV SETTEE_CONFIG=/etc/settee/settee.ini \
    SETTEE_DATA_DIR=/var/lib/settee \
    SETTEE_BIND=0.0.0.0 \
    SETTEE_PORT=5984 \
    SETTEE_LOG_STREAM=stdout
# Numeric, so that a runtime refusing root can tell (the user settee, made above).
USER 5984:5984
VOLUME ["/var/lib/settee"]
EXPOSE 5984 6984
STOPSIGNAL SIGTERM
# A shell form on purpose: the port comes from SETTEE_PORT.
# hadolint ignore=DL3025
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${SETTEE_PORT}/_up" >/dev/null || exit 1
ENTRYPOINT ["/usr/local/bin/settee"]
CMD ["serve"]
