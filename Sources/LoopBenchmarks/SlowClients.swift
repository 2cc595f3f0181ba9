import Foundation
import LoopCLI
import LoopFoundation
import LoopReports

/// Clients that hold a server's connections: readers that take a download slowly, and
/// slowloris connections that send a request's head a byte at a time. Plain sockets, all
/// driven by one thread, so that hundreds cost the benchmark little.
final class SlowClients: @unchecked Sendable {
    private var sockets: [Int32] = []
    private let stopped = NSCondition()
    private var stopping = false
    private var thread: Thread?

    /// `count` readers of `path`, each taking `bytesPerSecond` (read every 100 ms), a new
    /// download started when one ends.
    static func readers(port: Int, path: String, count: Int, bytesPerSecond: Int) throws -> SlowClients {
        let clients = SlowClients()
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        for _ in 0..<count {
            clients.sockets.append(try clients.connect(port: port, receiveBuffer: 16 << 10, sending: request))
        }
        clients.run(every: 0.1) { index, socket in
            var buffer = [UInt8](repeating: 0, count: bytesPerSecond / 10)
            let received = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if received == 0 || (received < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                close(socket)
                return try? clients.connect(port: port, receiveBuffer: 16 << 10, sending: request)
            }
            return socket
        }
        return clients
    }

    /// `count` connections that send a request's head one byte every `interval` seconds
    /// (slowloris), each opened again when the server closes it.
    static func slowloris(port: Int, count: Int, interval: Double) throws -> SlowClients {
        let clients = SlowClients()
        let start = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
        for _ in 0..<count { clients.sockets.append(try clients.connect(port: port, receiveBuffer: 0, sending: start)) }
        clients.run(every: interval) { _, socket in
            var byte: [UInt8] = [UInt8(ascii: "X")]
            if send(socket, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) <= 0 {
                close(socket)
                return try? clients.connect(port: port, receiveBuffer: 0, sending: start)
            }
            return socket
        }
        return clients
    }

    private func connect(port: Int, receiveBuffer: Int32, sending request: [UInt8]) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw CommandRefusal("no socket: \(String(cString: strerror(errno)))") }
        var size = receiveBuffer
        if size > 0 { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw CommandRefusal("cannot connect to port \(port): \(String(cString: strerror(errno)))")
        }
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return descriptor
    }

    private func run(every interval: Double, _ step: @escaping @Sendable (Int, Int32) -> Int32?) {
        let thread = Thread { [self] in
            while true {
                stopped.lock()
                if !stopping { _ = stopped.wait(until: Date().addingTimeInterval(interval)) }
                let stop = stopping
                stopped.unlock()
                if stop { return }
                for index in sockets.indices where sockets[index] >= 0 {
                    sockets[index] = step(index, sockets[index]) ?? -1
                }
            }
        }
        self.thread = thread
        thread.start()
    }

    /// Stops and closes every connection.
    func stop() {
        stopped.lock()
        stopping = true
        stopped.signal()
        stopped.unlock()
        while thread?.isFinished == false { usleep(10_000) }
        for socket in sockets where socket >= 0 { close(socket) }
        sockets = []
    }
}

extension RunningServer {
    /// Resident memory now (VmRSS), in bytes.
    var memory: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// Starts the peak (VmHWM) again from the memory held now.
    func resetPeakMemory() {
        try? "5".write(toFile: "/proc/\(process.processIdentifier)/clear_refs", atomically: false, encoding: .utf8)
    }

    var port: Int { Int(address.split(separator: ":").last ?? "") ?? 0 }
}
