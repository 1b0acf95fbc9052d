#!/bin/sh
# The videos of an accuracy log, encoded as the wan-2.2 reference's export_to_video does
# (imageio-ffmpeg: libx264, yuv420p, crf 25, 16 fps), from the frames mlperf-host decoded.
set -e
cd "$(dirname "$0")"
mkdir -p vbench_videos videos
ffmpeg -y -f rawvideo -vcodec rawvideo -s 8x8 -pix_fmt rgb24 -r 16.00 -i frames/0.rgb -an -vcodec libx264 -pix_fmt yuv420p -crf 25 -vf scale=16:16 -v warning 'vbench_videos/a cat drinking water-0.mp4'
ffmpeg -y -f rawvideo -vcodec rawvideo -s 8x8 -pix_fmt rgb24 -r 16.00 -i frames/1.rgb -an -vcodec libx264 -pix_fmt yuv420p -crf 25 -vf scale=16:16 -v warning 'vbench_videos/A panda drinking coffee in a cafe in Paris, watercolor painting-0.mp4'
ffmpeg -y -f rawvideo -vcodec rawvideo -s 8x8 -pix_fmt rgb24 -r 16.00 -i frames/2.rgb -an -vcodec libx264 -pix_fmt yuv420p -crf 25 -vf scale=16:16 -v warning 'vbench_videos/a person'\''s dog running on the beach-0.mp4'
ffmpeg -y -f rawvideo -vcodec rawvideo -s 8x8 -pix_fmt rgb24 -r 16.00 -i frames/3.rgb -an -vcodec libx264 -pix_fmt yuv420p -crf 25 -vf scale=16:16 -v warning 'vbench_videos/The bund Shanghai, black and white-0.mp4'
ffmpeg -y -f rawvideo -vcodec rawvideo -s 8x8 -pix_fmt rgb24 -r 16.00 -i frames/4.rgb -an -vcodec libx264 -pix_fmt yuv420p -crf 25 -vf scale=16:16 -v warning 'vbench_videos/a car turning a corner-0.mp4'
cp 'vbench_videos/The bund Shanghai, black and white-0.mp4' videos/3.mp4
cp 'vbench_videos/A panda drinking coffee in a cafe in Paris, watercolor painting-0.mp4' videos/1.mp4
