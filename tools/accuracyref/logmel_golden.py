#!/usr/bin/python3
"""Writes the Whisper log-mel front end's golden files in numpy.

Usage: logmel_golden.py DIR

DIR/audio.wav is 1.5 s of 16 kHz mono 16-bit PCM (a chirp, two tones
and noise from a fixed seed); DIR/filters80.npy is librosa.filters.mel(
sr=16000, n_fft=400, n_mels=80) (whisper's mel_filters.npz); and
DIR/melN.npy (N = 80, 128) the first FRAMES frames of the audio's log-mel
spectrogram as Whisper's feature extractor computes it, float32 [N, FRAMES].
Both are written here from their published definitions in numpy alone
(librosa and torch are not installed): the filters from librosa's
filters.mel with its defaults (Slaney mel scale and norm), the spectrogram
from openai-whisper's audio.log_mel_spectrogram and Hugging Face's
WhisperFeatureExtractor (audio padded to 30 s, periodic Hann window,
reflect padding as torch.stft(center=True), power spectrum, the last frame
dropped, log10 of at least 1e-10, at least the maximum less 8, (x+4)/4).
"""

import os
import sys
import wave

import numpy as np

SR = 16000
N_FFT = 400
HOP = 160
N_SAMPLES = 30 * SR
FRAMES = 160


def hz_to_mel(f):
    f = np.asanyarray(f, dtype=np.float64)
    f_sp = 200.0 / 3
    mels = f / f_sp
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-300) / min_log_hz) / logstep, mels)


def mel_to_hz(m):
    m = np.asanyarray(m, dtype=np.float64)
    f_sp = 200.0 / 3
    freqs = f_sp * m
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), freqs)


def mel_filters(n_mels):
    fftfreqs = np.fft.rfftfreq(n=N_FFT, d=1.0 / SR)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(SR / 2.0), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fftfreqs)
    weights = np.zeros((n_mels, 1 + N_FFT // 2), dtype=np.float32)
    for i in range(n_mels):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
    weights *= enorm[:, np.newaxis]
    return weights


def log_mel(audio, n_mels):
    x = np.zeros(N_SAMPLES, dtype=np.float64)
    x[:min(len(audio), N_SAMPLES)] = audio[:N_SAMPLES]
    x = np.pad(x, N_FFT // 2, mode="reflect")
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)
    n = 1 + (len(x) - N_FFT) // HOP
    frames = np.stack([x[t * HOP:t * HOP + N_FFT] * window for t in range(n)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    mel = mel_filters(n_mels).astype(np.float64) @ power.T
    log_spec = np.log10(np.maximum(mel, 1e-10))[:, :-1]
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0).astype(np.float32)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(20250)
    t = np.arange(int(1.5 * SR)) / SR
    sig = 0.3 * np.sin(2 * np.pi * (200 * t + 1500 * t * t))
    sig += 0.2 * np.sin(2 * np.pi * 440 * t) * (t < 0.7) + 0.1 * np.sin(2 * np.pi * 3100 * t) * (t > 0.9)
    sig += 0.02 * rng.standard_normal(len(t))
    pcm = np.clip(np.round(sig * 32767), -32768, 32767).astype("<i2")
    with wave.open(os.path.join(out, "audio.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes(pcm.tobytes())
    audio = pcm.astype(np.float32) / 32768  # as soundfile reads it
    np.save(os.path.join(out, "filters80.npy"), mel_filters(80))
    for n in (80, 128):
        np.save(os.path.join(out, "mel%d.npy" % n), np.ascontiguousarray(log_mel(audio, n)[:, :FRAMES]))


if __name__ == "__main__":
    main()
