// Command latencyproxy is a TCP proxy on loopback that delays every byte by -delay in each
// direction (25 ms each way: a 50 ms round trip), as a delay line: bytes are read as soon as
// they arrive and written -delay later, so bandwidth is not limited, only latency added (the
// kernel here has no netem). For measuring throughput over a long fat network with bench/.
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"time"
)

type packet struct {
	due  time.Time
	data []byte
}

func delayLine(dst net.Conn, src net.Conn, delay time.Duration) {
	queue := make(chan packet, 4096)
	go func() {
		defer close(queue)
		for {
			buf := make([]byte, 64<<10)
			n, err := src.Read(buf)
			if n > 0 {
				queue <- packet{due: time.Now().Add(delay), data: buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for p := range queue {
		time.Sleep(time.Until(p.due))
		if _, err := dst.Write(p.data); err != nil {
			break
		}
	}
	if tcp, ok := dst.(*net.TCPConn); ok {
		tcp.CloseWrite()
	}
	io.Copy(io.Discard, src)
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback only)")
	upstream := flag.String("upstream", "", "server address, e.g. 127.0.0.1:50051")
	delay := flag.Duration("delay", 25*time.Millisecond, "delay added in each direction")
	flag.Parse()
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on %s -> %s, +%s each way", lis.Addr(), *upstream, *delay)
	for {
		client, err := lis.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			server, err := net.Dial("tcp", *upstream)
			if err != nil {
				client.Close()
				return
			}
			go delayLine(server, client, *delay)
			delayLine(client, server, *delay)
			client.Close()
			server.Close()
		}()
	}
}
