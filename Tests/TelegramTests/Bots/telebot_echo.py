import os
import telebot
from telebot import apihelper

apihelper.API_URL = os.environ["TELEGRAM_API"] + "/bot{0}/{1}"
apihelper.FILE_URL = os.environ["TELEGRAM_API"] + "/file/bot{0}/{1}"
API_TOKEN = os.environ["BOT_TOKEN"]

bot = telebot.TeleBot(API_TOKEN)

@bot.message_handler(commands=['help', 'start'])
def send_welcome(message):
    bot.reply_to(message, """\
Hi there, I am EchoBot.
I am here to echo your kind words back to you. Just say anything nice and I'll say the exact same thing to you!\
""")

@bot.message_handler(func=lambda message: True)
def echo_message(message):
    bot.reply_to(message, message.text)

bot.infinity_polling()
