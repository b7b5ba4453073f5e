# Harmony: one static binary on a distroless base, running as non-root.
# Build: docker build -t harmony --build-arg VERSION=$(git describe --always) .
# Run:   docker run -p 8080:8080 -v harmony-data:/data harmony
#        (set AZURE_STORAGE_CONNECTION_STRING to run on Azure instead of /data)

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/harmony/harmony/internal/config.Version=${VERSION}" \
      -o /out/web ./cmd/web \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/web /web
COPY --from=build --chown=65532:65532 /out/data /data
# A container must listen on every interface (the default is loopback).
# Production also needs BASE_URL (https), SESSION_KEYS and CURSOR_KEY.
ENV DATA_DIR=/data \
    ADDR=:8080 \
    ENV=production
VOLUME ["/data"]
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["/web"]
CMD ["serve"]
